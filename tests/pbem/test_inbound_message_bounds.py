"""Reading a received email within bounds (issue 22): every bound refuses before the email
package parses, with a 5xx; exactly one plain sender; our own Authentication-Results read as
RFC 8601 writes it; Message-IDs safe to store; format=flowed unwrapped; and HTML-only replies of
every common client read without one word of the turn email they quote."""
from __future__ import annotations

import email
import unicodedata
from email.message import EmailMessage

import pytest
from game_helpers import make_cfg

from pbem import links
from pbem.inbound import bounds
from pbem.inbound.html_text import html_to_text
from pbem.inbound.bounds import Rejected
from pbem.inbound.message import read_message

TO = "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test"
HEAD = f"From: Ann <ann@example.com>\r\nTo: {TO}\r\nMessage-ID: <m1@example.com>\r\nSubject: Re: turn\r\n".encode()


def _raw(extra_headers: bytes = b"", body: bytes = b"draw\r\n", head: bytes = HEAD) -> bytes:
    return head + extra_headers + b"\r\n" + body


def _nested(depth: int) -> bytes:
    """A message whose text part is `depth` MIME levels down (the message itself is level 1)."""
    out = HEAD + b"MIME-Version: 1.0\r\n"
    for level in range(depth - 1):
        out += b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (level, level)
    out += b"Content-Type: text/plain\r\n\r\ndraw\r\n"
    for level in reversed(range(depth - 1)):
        out += b"--b%d--\r\n" % level
    return out


def _parts(count: int) -> bytes:
    """A multipart/mixed message of `count` text parts (and the message itself: count + 1)."""
    body = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\ndraw\r\n" for _ in range(count)) + b"--b--\r\n"
    return _raw(b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n", body)


def _html(html: str) -> bytes:
    return _raw(b"MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n"
                b"Content-Transfer-Encoding: 8bit\r\n", html.encode())


def _encoded_words(count: int, letters: int = 6) -> bytes:
    word = b"=?utf-8?q?" + b"Nh=C3=A9" * (letters // 6) + b"?="
    return b"\r\n ".join(word for _ in range(count))


OVER_BOUNDS = {
    "message size": (b"x" * (bounds.MAX_MESSAGE_BYTES + 1), 552, "bytes"),
    "header fields": (_raw(b"".join(b"X-H%d: v\r\n" % i for i in range(bounds.MAX_HEADER_FIELDS))), 554,
                      "header fields"),
    "one header field": (_raw(b"X-Long: " + b"a" * bounds.MAX_FIELD_BYTES + b"\r\n"), 552, "header field"),
    "one folded header field": (_raw(b"X-Long: a" + b"\r\n a" * (bounds.MAX_FIELD_BYTES // 2) + b"\r\n"), 552,
                                "header field"),
    "header section": (_raw(b"".join(b"X-H%d: %s\r\n" % (i, b"a" * 900) for i in range(150))), 552,
                       "header section"),
    "encoded-words": (_raw(b"X-Names: " + _encoded_words(bounds.MAX_ENCODED_WORDS + 1) + b"\r\n"), 554,
                      "encoded-words"),
    "the issue's 900 kB Subject of 12,000 encoded-words": (
        HEAD.replace(b"Subject: Re: turn\r\n", b"") + b"Subject: " + _encoded_words(12_000, 48) + b"\r\n\r\ndraw\r\n",
        552, "header field"),
    "lines": (_raw(body=b"x\n" * (bounds.MAX_LINES + 1)), 554, "lines"),
    "a Content- field": (_raw(b"Content-Type: text/plain;" + b" a=b;" * 400 + b"\r\n"), 552, "a Content- field"),
    "a Content- field in a part": (_raw(
        b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n",
        b"--b\r\nContent-Type: text/plain\r\nContent-Disposition: inline;\r\n" + b" a=b;\r\n" * 400
        + b"\r\ndraw\r\n--b--\r\n"), 552, "a Content- field"),
    "Content- fields together": (_parts(20).replace(b"Content-Type: text/plain\r\n", b"Content-Type: text/plain; name="
                                                      + b"a" * 1_900 + b"\r\n"), 552, "Content- fields"),
    "MIME containers": (_nested(bounds.MAX_RAW_CONTAINERS + 2), 554, "MIME containers"),
    "MIME boundary lines": (_parts(bounds.MAX_RAW_DELIMITER_LINES), 554, "boundary lines"),
    "lone CR line ends": (_nested(bounds.MAX_RAW_CONTAINERS + 2).replace(b"\r\n", b"\r"), 554, "MIME containers"),
}


@pytest.mark.parametrize("raw, code, reason", OVER_BOUNDS.values(), ids=OVER_BOUNDS.keys())
def test_a_message_over_a_bound_is_refused_with_a_5xx_before_the_email_package_parses_it(raw, code, reason,
                                                                                          monkeypatch):
    def not_parsed(*args, **kwargs):
        raise AssertionError("parsed before its bounds were checked")

    monkeypatch.setattr(email, "message_from_bytes", not_parsed)
    with pytest.raises(Rejected) as refused:
        read_message(raw)
    assert refused.value.code == code and reason in refused.value.reason


AFTER_PARSE = {
    "MIME depth": (_nested(bounds.MAX_MIME_DEPTH + 1), 554, "nested deeper"),
    "MIME parts": (_parts(bounds.MAX_MIME_PARTS), 554, "MIME parts"),
    "encoded-words in part headers": (_raw(
        b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n",
        b"--b\r\nContent-Type: text/plain\r\nX-Names: " + _encoded_words(bounds.MAX_ENCODED_WORDS + 1)
        + b"\r\n\r\ndraw\r\n--b--\r\n"), 554, "encoded-words in MIME parts"),
    "a header field in a part": (_raw(
        b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n",
        b"--b\r\nContent-Type: text/plain\r\nX-Long: " + b"a" * bounds.MAX_FIELD_BYTES
        + b"\r\n\r\ndraw\r\n--b--\r\n"), 552, "header field over"),
    "HTML part": (_html("<p>" + "x" * bounds.MAX_HTML_CHARS + "</p>"), 552, "HTML part"),
}


@pytest.mark.parametrize("raw, code, reason", AFTER_PARSE.values(), ids=AFTER_PARSE.keys())
def test_a_mime_tree_over_a_bound_is_refused_with_a_5xx_before_any_part_is_decoded(raw, code, reason):
    with pytest.raises(Rejected) as refused:
        read_message(raw)
    assert refused.value.code == code and reason in refused.value.reason


AT_BOUNDS = {
    "header fields": _raw(b"".join(b"X-H%d: v\r\n" % i for i in range(bounds.MAX_HEADER_FIELDS - 5))),
    "encoded-words": _raw(b"X-Names: " + _encoded_words(bounds.MAX_ENCODED_WORDS - 3) + b"\r\n"),
    "MIME depth": _nested(bounds.MAX_MIME_DEPTH),
    "MIME parts": _parts(bounds.MAX_MIME_PARTS - 1),
    "lines": _raw(body=b"draw\n" + b"x\n" * (bounds.MAX_LINES - 20)),
}


@pytest.mark.parametrize("raw", AT_BOUNDS.values(), ids=AT_BOUNDS.keys())
def test_a_message_at_a_bound_is_read(raw):
    assert read_message(raw).text.startswith("draw")


def test_a_reply_with_a_photo_attached_is_within_every_bound():
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "Ann <ann@example.com>", TO, "Re: turn"
    msg.set_content("draw")
    msg.add_alternative("<div>draw</div>", subtype="html")
    msg.add_attachment(bytes(range(256)) * 2_800, maintype="image", subtype="jpeg", filename="table.jpg")
    assert read_message(msg.as_bytes()).text.strip() == "draw"


def test_the_subject_is_decoded_from_its_first_characters_only():
    mail = read_message(_raw(head=HEAD.replace(b"Re: turn", b"=?utf-8?q?L=C6=B0=E1=BB=A3t?= " + b"x" * 5_000)))
    assert mail.subject.startswith("Lượt x") and len(mail.subject) <= bounds.MAX_SUBJECT_CHARS


# -- senders ----------------------------------------------------------------------------------

def _from(*values: str) -> bytes:
    head = b"".join(f"From: {v}\r\n".encode() for v in values)
    return _raw(head=head + f"To: {TO}\r\nMessage-ID: <m1@example.com>\r\n".encode())


@pytest.mark.parametrize("value, address", [
    ("Ann <ann@example.com>", "ann@example.com"),
    ("ANN@Example.COM", "ann@example.com"),
    ('"Smith, Ann" <ann@example.com>', "ann@example.com"),
    ("A. Smith <ann@example.com>", "ann@example.com"),  # an unquoted period: common, harmless
    ("=?utf-8?q?Nguy=E1=BB=85n_V=C4=83n_A?= <a@example.vn>", "a@example.vn"),
    ("Nguyễn Văn A <a@example.vn>", "a@example.vn"),  # raw UTF-8 (RFC 6532)
    ("ann@example.com (Ann)", "ann@example.com"),
    ('"ann@example.com" <Ann@example.com>', "ann@example.com"),  # its own address as its name
])
def test_one_from_header_with_one_plain_address_is_the_sender(value, address):
    mail = read_message(_from(value))
    assert (mail.from_addr, mail.sender_problem) == (address, None)


@pytest.mark.parametrize("values, problem", [
    ((), "0 From header fields"),
    (("ann@example.com", "ann@example.com"), "2 From header fields"),
    (("seat@example.com <evil@evil.example>",), "malformed"),
    (('"seat@example.com" <evil@evil.example>',), "display name"),
    (("=?utf-8?q?seat=40example=2Ecom?= <evil@evil.example>",), "display name"),
    (("Ann (seat@example.com) <evil@evil.example>",), "not one plain address"),
    (("seat@example.com, evil@evil.example",), "2 addresses"),
    (("Players: seat@example.com;",), "group"),
    (("Players: seat@example.com, evil@evil.example;",), "group"),
    (("<@relay.example,@evil.example:seat@example.com>",), "route"),
    (("@relay.example,@evil.example:seat@example.com",), "addresses"),
    (("ann@",), "cannot be parsed"),
    (("ann",), "malformed"),
    (("<>",), "malformed"),
    (('Ann <"ann x"@example.com>',), "not one plain address"),
    (("Ann <ann@example.com>, ",), "malformed"),
])
def test_from_that_is_not_exactly_one_plain_address_gives_no_sender_and_says_why(values, problem):
    mail = read_message(_from(*values))
    assert mail.from_addr == ""
    assert mail.sender_problem is not None and problem in mail.sender_problem
    assert "@" not in mail.sender_problem  # the log never holds an address


# -- Authentication-Results -------------------------------------------------------------------

@pytest.mark.parametrize("value, failed", [
    ("korsar.test; spf=fail smtp.mailfrom=example.com; dmarc=fail header.from=example.com", True),
    ("Korsar.Test; dmarc=fail header.from=example.com", True),
    ("korsar.test 1; dmarc=fail header.from=example.com", True),
    ("mx.korsar.test; dmarc=fail", True),
    ("korsar.test.; dmarc=fail", True),
    ('"korsar.test"; dmarc=fail', True),
    ("korsar.test (our MX (inbound)); dmarc = fail (p=reject dis=none) header.from=example.com", True),
    ("korsar.test;\r\n\tdkim=pass header.d=example.com;\r\n\tDMARC=FAIL", True),
    ("korsar.test; dkim/1=pass; dmarc=fail", True),
    ("korsar.test; what is this; dmarc=fail", True),  # one resinfo it cannot read is skipped
    ("korsar.test; dmarc=pass header.from=example.com", False),
    ("korsar.test; none", False),
    ("korsar.test; dkim=pass (dmarc=fail is only a comment)", False),
    ('korsar.test; dkim=pass reason="dmarc=fail"', False),
    ("mx.evil.example; dmarc=fail header.from=example.com", False),
    ("evilkorsar.test; dmarc=fail", False),
    ("korsar.test.evil.example; dmarc=fail", False),
    ("; dmarc=fail", False),
])
def test_only_our_own_authentication_results_are_read_and_dmarc_fail_is_refused(value, failed):
    raw = _raw(f"Authentication-Results: {value}\r\n".encode())
    assert read_message(raw, authserv_id="korsar.test").dmarc_failed is failed


def test_another_header_saying_dmarc_fail_is_not_authentication_results():
    raw = _raw(b"ARC-Authentication-Results: i=1; korsar.test; dmarc=fail\r\nX-Note: korsar.test; dmarc=fail\r\n")
    assert read_message(raw, authserv_id="korsar.test").dmarc_failed is False


def test_without_our_authserv_id_no_authentication_results_is_believed():
    raw = _raw(b"Authentication-Results: korsar.test; dmarc=fail\r\n")
    assert read_message(raw, authserv_id="").dmarc_failed is False


# -- Message-IDs ------------------------------------------------------------------------------

@pytest.mark.parametrize("raw_id, stored", [
    (b"<m\x00x@example.com>", "<mx@example.com>"),
    (b"<m\x01\x1f\x7fx@example.com>", "<mx@example.com>"),
    (b"<m\xffx@example.com>", "<m\ufffdx@example.com>"),  # raw 8-bit: read as UTF-8, never a surrogate
    (b"<" + b"a" * 400 + b"@example.com>", "<" + "a" * 254),
])
def test_the_message_id_is_stored_without_control_characters_and_at_most_255_characters(raw_id, stored):
    raw = _raw(head=HEAD.replace(b"<m1@example.com>", raw_id))
    assert read_message(raw).message_id == stored


def test_a_message_without_a_message_id_is_named_by_its_content():
    raw = _raw(head=HEAD.replace(b"Message-ID: <m1@example.com>\r\n", b""))
    assert read_message(raw).message_id == read_message(raw).message_id
    assert read_message(raw).message_id.startswith("<sha256-")


def test_the_answered_ids_are_in_reply_to_then_references_newest_first_cleaned_and_at_most_20():
    references = b" ".join(b"<r%d@korsar.test>" % i for i in range(30))
    raw = _raw(b"In-Reply-To: <r29@korsar.test> <p\x00@korsar.test>\r\nReferences: " + references + b"\r\n")
    ids = read_message(raw).answered_ids
    assert ids[:3] == ("<r29@korsar.test>", "<p@korsar.test>", "<r28@korsar.test>")
    assert len(ids) == bounds.MAX_ANSWERED_IDS and len(set(ids)) == len(ids)


# -- the text ---------------------------------------------------------------------------------

def _plain(body: str, params: str = "") -> bytes:
    return _raw(f"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8{params}\r\n".encode(),
                body.encode())


@pytest.mark.parametrize("body, params, text", [
    ("Je pioche une carte, \r\nmerci !\r\n", "; format=flowed", "Je pioche une carte, merci !"),
    (" From the top\r\n", "; format=flowed", "From the top"),  # space-stuffing removed
    ("rút \r\nbài\r\n", "; format=flowed; delsp=yes", "rútbài"),
    ("draw\r\n-- \r\nAnn\r\n", "; format=flowed", "draw\n-- \nAnn"),  # the signature separator never flows
    ("draw\r\n> Your \r\n> turn\r\n>> 1. Draw \r\n>> a card\r\n", "; format=flowed",
     "draw\n> Your turn\n>> 1. Draw a card"),
    ("draw \r\n> quoted\r\n", "; format=flowed", "draw \n> quoted"),  # a quote depth change ends a paragraph
    ("Je pioche une carte, \r\nmerci !\r\n", "", "Je pioche une carte, \nmerci !"),  # not flowed: as sent
])
def test_format_flowed_is_unwrapped_and_its_quote_depth_kept_as_marks(body, params, text):
    assert read_message(_plain(body, params)).text.rstrip("\n") == text


def test_the_text_is_nfc_without_control_characters_and_bounded():
    decomposed = unicodedata.normalize("NFD", "rút bài")
    text = read_message(_plain(decomposed + "\x00\x07\tok\r\n" + "x" * (2 * bounds.MAX_TEXT_CHARS))).text
    assert text.startswith("rút bài\tok\n") and len(text) == bounds.MAX_TEXT_CHARS


def test_text_plain_is_preferred_to_html():
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "Ann <ann@example.com>", TO, "Re: turn"
    msg.set_content("draw")
    msg.add_alternative("<div>play 3</div>", subtype="html")
    assert read_message(msg.as_bytes()).text.strip() == "draw"


def test_the_reply_address_of_a_game_id_or_version_past_32_bits_or_a_seat_past_15_is_not_ours():
    cfg = make_cfg("sqlite://")
    mac = "aaaaaaaaaaaaaaaa"
    assert links.parse_reply_address(cfg, f"play+{2**31 - 1}-15-999999999-{mac}@korsar.test") is not None
    for local in (f"{2**31}-0-0", f"1-0-{2**31}", "1-16-0"):
        assert links.parse_reply_address(cfg, f"play+{local}-{mac}@korsar.test") is None


# -- HTML-only replies ------------------------------------------------------------------------

# What must never come out of a reply: every kind of line of the turn email it quotes.
QUOTED = ["Korsar by mail", "Your moves", "Draw a card", "Play your merchant ship", "Attack Bob",
          "Your hand", "Green 2", "Blue captain", "Merchant ship", "The table", "Players", "none yet",
          "korsar.test/m/", "korsar.test/g/", "korsar.test/u/", "Open your game page", "Every link in this email"]

TURN_BODY = """\
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#eef2f5;">
<tr><td align="center" style="padding:16px 8px;">
<table role="presentation" width="100%" style="max-width:640px;background:#ffffff;border:1px solid #c9d3dc;">
<tr><td style="background:#0d3b66;color:#ffffff;padding:12px 16px;">Korsar by mail &middot; Ann vs Bob</td></tr>
<tr><td style="padding:16px;font-size:15px;">
<p style="margin:0 0 8px 0;">Ann, it is your turn. Please move before Friday 4 December 2026.</p>
<h2 style="margin:18px 0 6px 0;">Your moves: click one</h2>
<table role="presentation" cellpadding="4">
<tr><td data-move-link data-move-number="1">
<a href="https://korsar.test/m/WzEsMCwiZjMx.aw88FQ.7ImO">1. Draw a card</a></td></tr>
<tr><td data-move-link data-move-number="2">
<a href="https://korsar.test/m/WzEsMCwiZjMy.aw88FQ.KeHy">2. Play your merchant ship (3 gold)</a></td></tr>
<tr><td data-move-link data-move-number="3">
<a href="https://korsar.test/m/WzEsMCwiZjMz.aw88FQ.BEE7">3. Attack Bob's ship 2 (4 gold) with Green 2</a></td></tr>
</table>
<h2>Your hand</h2>
<div data-hand="own" data-seat="0"><span data-card="BC">Blue captain</span> <span data-card="G2">Green 2</span>
<span data-card="M3">Merchant ship (3 gold)</span></div>
<h2>The table</h2>
<p><em>Bob: ship 2, Merchant ship (4 gold)</em></p>
<h2>Players</h2>
<table role="presentation" width="100%"><tr><th>Player</th><th>Cards</th><th>Score pile</th></tr>
<tr data-player="0"><td>You &larr; to move</td><td align="right">6</td><td>none yet</td></tr></table>
<p><a href="https://korsar.test/g/WzEsMCwiZjMxYmJl.aw88FQ.vcNE">Open your game page</a></p>
</td></tr>
<tr><td style="font-size:12px;">Every link in this email is yours alone: please do not forward it.
<br><span data-unsubscribe><a href="https://korsar.test/u/WzEsMSwiZjMx.JqGP">Stop reminders</a></span></td></tr>
</table></td></tr></table>"""

# The whole turn email as clients that keep the quoted document embed it.
TURN_DOCUMENT = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Your turn in Ann vs Bob</title></head>
<body style="margin:0;padding:0;background:#eef2f5;">{TURN_BODY}</body></html>"""

# Outlook on the web rewrites the ids and classes of the quoted message with an x_ prefix.
TURN_OWA = TURN_BODY.replace('<table role="presentation" width="100%" cellpadding="0"',
                             '<table class="x_body" role="presentation" width="100%" cellpadding="0"', 1)

ATTRIBUTION_EN = "On Tue, Dec 1, 2026 at 10:00 AM Korsar &lt;korsar@korsar.test&gt; wrote:"

CLIENTS = {
    "gmail": ("2\ngood luck Bob", f"""<div dir="ltr">2<div>good luck Bob</div></div><br>
<div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">{ATTRIBUTION_EN}<br></div>
<blockquote class="gmail_quote"
 style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">
<u></u><div style="margin:0;padding:0">{TURN_BODY}</div></blockquote></div>"""),
    "gmail with a signature": ("draw", f"""<div dir="ltr">draw<br clear="all"><div><br></div>
<span class="gmail_signature_prefix">-- </span><br>
<div dir="ltr" class="gmail_signature" data-smartmail="gmail_signature">Ann Smith<br>+33 6 12 34 56 78</div></div>
<br><div class="gmail_quote"><div dir="ltr" class="gmail_attr">{ATTRIBUTION_EN}<br></div>
<blockquote class="gmail_quote">{TURN_BODY}</blockquote></div>"""),
    "outlook desktop": ("3\n\nAnn", f"""<html xmlns:v="urn:schemas-microsoft-com:vml"
xmlns:o="urn:schemas-microsoft-com:office:office"
xmlns:w="urn:schemas-microsoft-com:office:word" xmlns:m="http://schemas.microsoft.com/office/2004/12/omml"
xmlns="http://www.w3.org/TR/REC-html40"><head><meta http-equiv=Content-Type content="text/html; charset=utf-8">
<meta name=Generator content="Microsoft Word 15 (filtered medium)"><style><!--
/* Font Definitions */ @font-face {{font-family:"Cambria Math";}} p.MsoNormal, li.MsoNormal {{margin:0cm;}}
--></style><!--[if gte mso 9]><xml><o:shapedefaults v:ext="edit" spidmax="1026" /></xml><![endif]--></head>
<body lang=EN-GB link="#0563C1" vlink="#954F72" style='word-wrap:break-word'><div class=WordSection1>
<p class=MsoNormal>3<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>Ann<o:p></o:p></p>
<p class=MsoNormal><o:p>&nbsp;</o:p></p><div>
<div style='border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm'>
<p class=MsoNormal><b><span lang=EN-US>From:</span></b><span lang=EN-US> Korsar &lt;korsar@korsar.test&gt; <br>
<b>Sent:</b> Tuesday, 1 December 2026 10:00<br><b>To:</b> Ann &lt;ann@example.com&gt;<br>
<b>Subject:</b> [Korsar] Your turn<o:p></o:p></span></p></div></div><p class=MsoNormal><o:p>&nbsp;</o:p></p>
<div><p class=MsoNormal>Korsar by mail &middot; Ann vs Bob</p>{TURN_BODY}</div></div></body></html>"""),
    "outlook 2010": ("piocher", f"""<html><body><div class=WordSection1><p class=MsoNormal>piocher<o:p></o:p></p>
<div><div style='border:none;border-top:solid #B5C4DF 1.0pt;padding:3.0pt 0cm 0cm 0cm'><p class=MsoNormal>
<b>De&nbsp;:</b> Korsar [mailto:korsar@korsar.test] <br><b>Envoyé&nbsp;:</b> mardi 1 décembre 2026 10:00</p>
</div></div>{TURN_BODY}</div></body></html>"""),
    "outlook 2003": ("rút bài", f"""<html><body><div dir=ltr align=left><font face=Arial size=2>rút bài</font></div>
<br><div class=OutlookMessageHeader lang=en-us dir=ltr align=left><hr tabindex=-1><font face=Tahoma size=2>
<b>From:</b> Korsar<br><b>Sent:</b> Tuesday<br></font><br></div><div></div>{TURN_BODY}</body></html>"""),
    "outlook on the web": ("n°2\nMerci", f"""<html><head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<style type="text/css" style="display:none;"> P {{margin-top:0;margin-bottom:0;}} </style></head><body dir="ltr">
<div class="elementToProof"
 style="font-family: Aptos, Aptos_EmbeddedFont, Calibri, sans-serif; font-size: 12pt;">n°2</div>
<div class="elementToProof" style="font-family: Aptos, sans-serif; font-size: 12pt;">Merci</div>
<div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">
<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000">
<b>From:</b> Korsar &lt;korsar@korsar.test&gt;<br><b>Sent:</b> Tuesday, December 1, 2026 10:00 AM<br>
<b>To:</b> Ann &lt;ann@example.com&gt;<br><b>Subject:</b> [Korsar] Your turn</font><div>&nbsp;</div></div>
<div>{TURN_OWA}</div></body></html>"""),
    "outlook on the web without appendonsend": ("draw", f"""<html><body><div class="elementToProof">draw</div>
<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><b>From:</b> Korsar</div>
<div>{TURN_OWA}</div></body></html>"""),
    "outlook on the web quoting only x_ content": ("draw", f"""<html><body><div>draw</div>
<div id="x_divtagdefaultwrapper">{TURN_BODY}</div></body></html>"""),
    "new outlook for mac": ("play 2", f"""<html><body><div dir="ltr">play 2</div><div><br></div>
<div id="mail-editor-reference-message-container"><div class="ms-outlook-mobile-reference-message skipProofing">
<div style="border:none;border-top:solid #B5C4DF 1.0pt;padding:3.0pt 0in 0in 0in"><b>From: </b>Korsar</div>
{TURN_BODY}</div></div></body></html>"""),
    "apple mail": ("draw\ncheers", f"""<html><head>
<meta http-equiv="content-type" content="text/html; charset=utf-8"></head>
<body style="overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: after-white-space;">draw<div>cheers</div>
<div><br id="lineBreakAtBeginningOfMessage"><div><br><blockquote type="cite"><div>On 1 Dec 2026, at 10:00, Korsar
&lt;korsar@korsar.test&gt; wrote:</div><br class="Apple-interchange-newline"><div>{TURN_DOCUMENT}</div></blockquote>
</div><br></div></body></html>"""),
    "thunderbird": ("je pioche", f"""<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
</head>
<body><p>je pioche</p><div class="moz-cite-prefix">Le 01/12/2026 à 10:00, Korsar a écrit&nbsp;:<br></div>
<blockquote type="cite" cite="mid:turn-1@korsar.test">{TURN_DOCUMENT}</blockquote><br></body></html>"""),
    "thunderbird bottom-posted": ("draw", f"""<html><body>
<div class="moz-cite-prefix">On 01/12/2026 10:00, Korsar wrote:<br>
</div><blockquote type="cite">{TURN_BODY}</blockquote><p>draw</p></body></html>"""),
    "thunderbird inline": ("draw\nand good luck", f"""<html><body><div class="moz-cite-prefix">On 01/12/2026 10:00,
Korsar wrote:<br></div><blockquote type="cite">{TURN_BODY}</blockquote><p>draw</p>
<blockquote type="cite"><p>Players</p></blockquote><p>and good luck</p></body></html>"""),
    "yahoo": ("rút bài", f"""<html><head></head><body>
<div class="ydp5f1b6a1dyahoo-style-wrap" style="font-family:Helvetica
Neue, Helvetica, Arial, sans-serif;font-size:13px;"><div dir="ltr" data-setdir="false">rút bài</div></div>
<div id="ydp1c2bd4a6yahoo_quoted_4711" class="ydp1c2bd4a6yahoo_quoted"><div style="font-size:13px;color:#26282a;">
<div>Vào Thứ Ba, 1 tháng 12, 2026 lúc 10:00, Korsar &lt;korsar@korsar.test&gt; đã viết:</div><div><br></div>
<div><div id="ydp1c2bd4a6yiv123">{TURN_BODY}</div></div></div></div></body></html>"""),
    "protonmail": ("defend 1 with blue 1", f"""<div style="font-family: Arial, sans-serif; font-size: 14px;">
defend 1 with blue 1</div><div style="font-family: Arial, sans-serif; font-size: 14px;"><br></div>
<div class="protonmail_quote">On Tuesday, December 1st, 2026 at 10:00, Korsar &lt;korsar@korsar.test&gt; wrote:<br>
<blockquote class="protonmail_quote" type="cite">{TURN_BODY}</blockquote><br></div>"""),
    "samsung email": ("say nice move", f"""<html><head>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8">
</head><body><div dir="auto">say nice move</div><div dir="auto"><br></div><div dir="auto"><br></div>
<!-- originalMessage --><div align="left" dir="auto" style="font-size:100%;color:#000000">
<div>-------- Original message --------</div><div>From: Korsar &lt;korsar@korsar.test&gt; </div>
<div>Date: 01/12/2026 10:00 (GMT+01:00) </div></div>{TURN_BODY}</body></html>"""),
    "a web mailer's plain blockquote": ("draw", f"""<p>draw</p><p>On 2026-12-01 10:00, Korsar wrote:</p>
<blockquote style="padding: 0 0.4em; border-left: #1010ff 2px solid; margin: 0">{TURN_BODY}</blockquote>"""),
}


@pytest.mark.parametrize("kept, html", CLIENTS.values(), ids=CLIENTS.keys())
def test_an_html_only_reply_of_each_client_keeps_the_writers_text_and_nothing_it_quotes(kept, html):
    text = read_message(_html(html)).text
    assert text.startswith(kept)
    assert [line for line in QUOTED if line in text] == []


SEPARATORS = ["-------- Original message --------", "-------- Oryginalna wiadomość --------",
              "-------- Исходное сообщение --------", "-------- Ursprungligt meddelande --------",
              "-------- Orijinal mesaj --------", "-------- 원본 메시지 --------", "-------- 原始邮件 --------",
              "-------- 元のメッセージ --------", "-------- Message d'origine --------",
              "-------- Tin nhắn gốc --------", "---------- Forwarded message ---------"]


@pytest.mark.parametrize("separator", SEPARATORS)
def test_samsungs_original_message_separator_in_any_language_cuts_everything_after_it(separator):
    html = (f'<div dir="auto">say nice move</div><div dir="auto"><br></div><div align="left" dir="auto">'
            f'<div>{separator}</div><div>Od: Korsar &lt;korsar@korsar.test&gt;</div></div>{TURN_BODY}')
    assert html_to_text(html) == "say nice move"


@pytest.mark.parametrize("quote", [
    "<div class='gmail_quote'>On ... wrote:<br></font>Green 2</div>",
    "<blockquote>Le 3 déc. 2026, Ann a écrit :</p>Green 2</blockquote>",
    "<blockquote>quoted</span></div></div>Green 2</blockquote>",
    "<blockquote type=cite><html><body>quoted</body></html>Green 2</blockquote>",
    "<blockquote type=cite>quoted</body><p>Green 2</p></blockquote>",
    "<blockquote type=cite>quoted</html><p>Green 2</p></blockquote>",
    "<blockquote><table><tr><td>quoted</blockquote><p>Green 2</p></td></tr></table>",
])
def test_a_stray_end_tag_in_a_quote_does_not_end_the_quote(quote):
    assert html_to_text(f"<p>good luck</p>{quote}") == "good luck"


def test_html_blocks_become_lines_and_scripts_styles_and_titles_are_dropped():
    html = ("<html><head><title>T</title><style>p {color: red}</style></head><body><script>var x = 'draw';</script>"
            "<h1>Hi</h1><div>line one<br>line two</div><div><br></div><p>a&nbsp;b &amp; c</p>"
            "<ul><li>x</li><li>y</li></ul><table><tr><td>cell</td><td>next</td></tr></table><hr>end"
            "<pre>keep\n  this</pre></body></html>")
    assert html_to_text(html).split("\n") == ["Hi", "line one", "line two", "", "a b & c", "x", "y", "cell next",
                                              "end", "keep", "this"]


@pytest.mark.parametrize("html, text", [
    ("", ""),
    ("   ", ""),
    ("<?xml version='1.0' encoding='utf-8'?><div>draw</div>", "draw"),
    ("<meta charset='koi8-r'><div>rút bài</div>", "rút bài"),
    ("<div>dr\x00aw</div>", "dr\ufffdaw"),
    ("<!-- originalMessage --><div>Green 2</div>", ""),
])
def test_odd_html_is_read_without_raising(html, text):
    assert html_to_text(html) == text


def test_hostile_nesting_keeps_the_writers_text_before_it_and_drops_what_is_deeper():
    nested = "<b>" * 40_000 + "Green 2" + "</i>" * 40_000
    assert html_to_text(f"<div>draw</div>{nested}<p>Green 2</p>") == "draw"
