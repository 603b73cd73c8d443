"""The replies corpus (tests/pbem/replies_corpus/, its README.md says the format): over 500
replies in English, French and Vietnamese, each written as a real mail client writes it around
our real turn email, each sent through `pbem.inbound.handler.handle_message` in a fresh game.

One test per language (they run apart under xdist): a wrong move, a line or link of our email
passed on, words passed on where nobody may hear them or an answer to a forged or machine-made
message fails it at once, every such row listed; then at least 97% of the replies that name a
move without doubt must be played, and 97% of all replies understood as their row says (the
failure lists every row that is not). `python -m benchmarks.replies_corpus` prints the figures
per language, client, layout, situation and trap."""
from __future__ import annotations

import email
import email.policy
import html
from collections import Counter
from email.message import EmailMessage

import pytest
from corpus_mail import (
    CLIENTS,
    LANGUAGES,
    OTHER_CLIENTS,
    SITUATIONS,
    Verdict,
    build_reply,
    build_turn,
    compose,
    corpus,
    parse_client,
    run_row,
)
from game_helpers import make_cfg

from pbem.db import make_engine


UNDERSTOOD = 0.97  # of the `play` rows, and of all rows, in each language


def _listed(verdicts: list[Verdict]) -> str:
    return "\n".join("  " + v.describe() for v in verdicts)


def test_the_corpus_holds_300_replies_a_third_in_each_language_with_60_traps_from_every_client():
    rows = {language: corpus(language) for language in LANGUAGES}
    everything = [r for language_rows in rows.values() for r in language_rows]
    assert len(everything) >= 300
    assert all(len(language_rows) >= len(everything) / 4 for language_rows in rows.values())
    assert sum(1 for r in everything if r.trap) >= 60
    for language, language_rows in rows.items():
        assert {r.client.split(":")[0].removesuffix("+html") for r in language_rows} >= set(CLIENTS), language
        assert {r.layout for r in language_rows} >= {"top", "bottom", "inline"}, language
        assert {r.expect for r in language_rows} == {"play", "choices", "nomove", "refused", "silent"}, language
        assert {r.situation for r in language_rows} == set(SITUATIONS), language


# About 170 s of a PostgreSQL run; the replies' database path runs on PostgreSQL in
# test_inbound_hostile, test_reply_talk and test_inbound_game.
@pytest.mark.judges("how replies are read")
@pytest.mark.parametrize("language", LANGUAGES)
def test_no_reply_plays_a_wrong_move_or_passes_our_email_on_and_97_percent_are_understood(database_url, language):
    db = make_engine(database_url)
    try:
        cfg = make_cfg(database_url)
        verdicts = [run_row(db, cfg, row, serial) for serial, row in enumerate(corpus(language))]
    finally:
        db.dispose()
    plays = [v for v in verdicts if v.row.expect == "play"]
    played = sum(v.played_as_expected for v in plays) / len(plays)
    understood = sum(v.understood for v in verdicts) / len(verdicts)
    summary = (f"replies corpus, {language}: {len(verdicts)} replies "
               f"({dict(Counter(v.row.expect for v in verdicts))}, {sum(1 for v in verdicts if v.row.trap)} traps); "
               f"unambiguous ones played {played:.1%}; all understood {understood:.1%}; "
               f"wrong moves {sum(v.wrong_move for v in verdicts)}")
    print(summary)  # (-s shows it; python -m benchmarks.replies_corpus prints every figure)
    failures = [v for v in verdicts if v.wrong_move or v.hard]
    assert not failures, f"{len(failures)} {language} replies acted against their writer:\n{_listed(failures)}"
    misses = [v for v in verdicts if not v.understood]
    assert played >= UNDERSTOOD and understood >= UNDERSTOOD, f"{summary}; not understood:\n{_listed(misses)}"


# ---- the builders write what the clients write (a corpus of unrealistic mail proves nothing)

def _parsed(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def _part(msg: EmailMessage, subtype: str) -> str | None:
    part = msg.get_body(preferencelist=(subtype,))
    return None if part is None else part.get_content().replace("\r\n", "\n")


@pytest.mark.parametrize("client, layout", [(c, "top") for c in CLIENTS + OTHER_CLIENTS]
                         + [("mutt", "bottom"), ("gmail", "inline")])
def test_each_client_quotes_our_real_email_as_that_client_does(engine, database_url, client, layout):
    cfg = make_cfg(database_url)
    turn = build_turn(engine, cfg, SITUATIONS["battle"], "fr", tag="shape")
    raw, envelope = build_reply(turn, parse_client(client, "fr"), compose("bleu 3 sur 1", layout))
    msg = _parsed(raw)
    text, page = _part(msg, "plain"), _part(msg, "html")
    assert str(msg["To"]) == turn.reply_to and str(msg["In-Reply-To"]) == str(turn.message["Message-ID"])
    assert envelope["envelope_rcpts"] == [turn.reply_to]
    first_label = f"1. {turn.labels[0]}"
    if client in ("owa",):
        assert text is None and page is not None and 'id="divRplyFwdMsg"' in page
        assert page.index("divRplyFwdMsg") < page.index(turn.links[1])  # our email: its following siblings
    elif client in ("k9", "mutt"):
        assert page is None and text is not None and f"> {first_label}" in text.split("\n")
    else:
        assert text is not None and page is not None and turn.links[1] in page
    if client == "mutt":
        assert msg.get_content_type() == "text/plain" and msg.get_param("format") == "flowed"
    if client in ("samsung", "outlook", "outlook2016", "yahoo"):  # no quote marks: our lines as they were sent
        assert text is not None and any(line.strip() == first_label for line in text.split("\n"))
        assert not any(line.startswith(">") for line in text.split("\n"))
    if client in ("gmail", "apple", "thunderbird", "k9", "mutt"):
        assert text is not None and f"> {first_label}" in text.split("\n")
    container = {"gmail": 'class="gmail_quote', "apple": '<blockquote type="cite">', "yahoo": 'class="yahoo_quoted"',
                 "thunderbird": 'class="moz-cite-prefix"', "outlook": 'id="divRplyFwdMsg"',
                 "outlook2016": "border-top:solid #E1E1E1",
                 "samsung": html.escape("-------- Message d'origine --------")}.get(client)
    if container:
        assert page is not None and container in page
    assert text is None or (text.index("bleu 3 sur 1") < text.index(first_label)) == (layout == "top")
