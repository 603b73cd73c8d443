"""Which rows are one person's (pbem/games/privacy.py): a mailbox in any spelling (case, +tag,
Gmail's dots and two domains), never a neighbour's (the same local part elsewhere, a longer
local part); and what erasure scrubs out of other people's text, and what it leaves."""
from __future__ import annotations

import pytest
from game_helpers import make_cfg
from sqlmodel import Session, select

from pbem.games import privacy
from pbem.mail import suppression
from pbem.models import AddressPreference, Notice, Suppression

SAME = ["Zeb.Q@Gmail.com", "zebq+korsar@googlemail.com", "z.e.b.q@gmail.com", "ZEBQ@GMAIL.COM"]
OTHERS = ["zebq@gmail.co", "zebqx@gmail.com", "xzebq@gmail.com", "zebq@example.com", "zeb_q@gmail.com"]


def test_every_spelling_of_a_mailbox_and_no_neighbour_is_found(engine):
    with Session(engine) as s:
        for email in SAME + OTHERS:
            s.add(AddressPreference(email=email.lower()))
        s.commit()
        found = privacy.held(s, "zebq@gmail.com")
    assert sorted(p.email for p in found.preferences) == sorted(e.lower() for e in SAME)


def test_like_wildcards_in_an_address_are_literal(engine):
    with Session(engine) as s:
        for email in ["a_b@example.com", "axb@example.com", "a%b@example.com"]:
            s.add(AddressPreference(email=email))
        s.commit()
        assert [p.email for p in privacy.held(s, "a_b@example.com").preferences] == ["a_b@example.com"]


def test_the_scrub_leaves_another_mailbox_with_the_same_local_part(engine):
    with Session(engine) as s:
        s.add(Suppression(email="zebulon.quixote@other.example", key="zebulon.quixote@other.example"))
        s.commit()
        changed = privacy.scrub(s, ["zebulon.quixote@example.com"], ["zebulon.quixote"])
        s.commit()
        assert changed == 0
        assert s.exec(select(Suppression.email)).all() == ["zebulon.quixote@other.example"]


@pytest.mark.parametrize("written, left", [
    ("Zebulon.Quixote played red 3", "[erased] played red 3"),
    ("mailto:zebulon.quixote%40example.com", "mailto:[erased]"),
    ("ZEBULON.QUIXOTE@EXAMPLE.COM bounced", "[erased] bounced"),
    ("zebulon.quixote@other.example is someone else", "zebulon.quixote@other.example is someone else"),
])
def test_the_scrub_replaces_every_form_in_other_rows_text(engine, written, left):
    from pbem.models import Game, Seat
    with Session(engine) as s:
        game = Game(deck_json="[]", state_json="{}")
        s.add(game)
        s.flush()
        seat = Seat(game_id=game.id, position=0, name="Bob")
        s.add(seat)
        s.flush()
        s.add(Notice(game_id=game.id, seat_id=seat.id, kind="news", text=written))
        s.commit()
        forms = ["zebulon.quixote@example.com", "zebulon.quixote%40example.com"]
        privacy.scrub(s, forms, ["zebulon.quixote"])
        s.commit()
        assert s.exec(select(Notice.text)).one() == left


def test_the_keyed_hash_depends_on_the_secret():
    one = suppression.hashed_key("zebq@gmail.com", "a" * 40)
    assert one is not None and one.startswith(suppression.HASHED_PREFIX) and "zebq" not in one
    assert one != suppression.hashed_key("zebq@gmail.com", "b" * 40)
    assert one == suppression.hashed_key("zebq@gmail.com", "a" * 40)


def test_an_erased_address_that_asked_never_stays_refused_in_every_spelling(engine):
    cfg = make_cfg(str(engine.url))
    suppression.use_secret(cfg.SECRET_KEY)
    with Session(engine) as s:
        suppression.add(s, "zeb.q+x@gmail.com")
        assert suppression.forget(s, "zebq@gmail.com", secret=cfg.SECRET_KEY, keep=False)
        s.commit()
        assert [r.email for r in s.exec(select(Suppression))] == [suppression.hashed_key("zebq@gmail.com")]
        assert suppression.suppressed_among(s, SAME) == {e.lower() for e in SAME}
        assert suppression.suppressed_among(s, OTHERS) == set()
