"""Reading a reply: its charset and parts, the quote and signature stripped, and its move, in
English, French and Vietnamese, by number or in words."""
from __future__ import annotations

from email.message import EmailMessage

import pytest

from pbem.inbound.bounds import MAX_MESSAGE_BYTES, TooLarge
from pbem.inbound.message import read_message


def test_an_html_only_reply_is_read_without_its_quoted_block():
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.com", "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test", "Re"
    msg.set_content("<div>B3 on 3<br>good luck</div><div class='gmail_quote'>On ... wrote:"
                    "<blockquote>1. Draw a card</blockquote></div>", subtype="html")
    assert read_message(msg.as_bytes()).text.splitlines() == ["B3 on 3", "good luck"]


@pytest.mark.parametrize("quote", [
    "<div class='gmail_quote'>On ... wrote:<br></font>draw</div>",
    "<blockquote>Le 3 déc. 2026, Ann a écrit :</p>M5</blockquote>",
])
def test_a_stray_end_tag_in_the_quote_does_not_let_the_quoted_moves_through(quote):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.com", "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test", "Re"
    msg.set_content(f"<p>good luck</p>{quote}", subtype="html")
    assert read_message(msg.as_bytes()).text.split() == ["good", "luck"]


def test_an_attachment_is_ignored_and_the_text_part_read():
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.com", "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test", "Re"
    msg.set_content("draw")
    msg.add_attachment(b"GIF89a", maintype="image", subtype="gif", filename="x.gif")
    assert read_message(msg.as_bytes()).text.strip() == "draw"


def test_a_message_over_the_size_limit_is_not_parsed():
    with pytest.raises(TooLarge):
        read_message(b"x" * (MAX_MESSAGE_BYTES + 1))
