"""The pages an invited friend reaches from their one invitation email, with the Flask test
client: the invitation (GET inert), accept and decline (single use, 409 after), a replaced
invitee's old link (403), damaged links (400), "never email me again" (page, POST and RFC 8058
one-click), each in the invitation's language."""
from __future__ import annotations

from typing import Any

import pytest
from game_helpers import cfg_of, db_of
from sqlmodel import Session, col, select

from pbem import links
from pbem.models import Invitation, OutboxMessage, Proposal, Suppression

# The pages' links are compared with links the test signs: one timestamp for all of them.
pytestmark = pytest.mark.usefixtures("links_signed_at_one_instant")

FORM = {"your_name": "Ann", "your_email": "ann@example.com", "players": "Bob <bob@example.com>\nbot:greedy",
        "deadline_hours": "48", "reminders": "50,85", "on_timeout": "autoplay"}


def text_of(response: Any) -> str:
    return response.get_data(as_text=True)


def rows(app: Any, model: Any) -> list[Any]:
    with Session(db_of(app)) as s:
        order = model.email if model is Suppression else model.id
        return list(s.exec(select(model).order_by(col(order))))


def path_of(app: Any, url: str) -> str:
    return url[len(cfg_of(app).BASE_URL):]


def invite_bob(app: Any, client: Any, **form: str) -> Proposal:
    """Ann sets up a game with Bob and a bot, and confirms it: Bob gets his invitation."""
    assert client.post("/new", data={**FORM, **form}).status_code == 303
    (proposal,) = rows(app, Proposal)
    assert client.post(path_of(app, links.confirm_url(cfg_of(app), proposal.id, proposal.nonce))).status_code == 303
    return proposal


def bobs_row(app: Any) -> Invitation:
    return next(i for i in rows(app, Invitation) if i.email == "bob@example.com")


def bobs_page(app: Any) -> str:
    row = bobs_row(app)
    return path_of(app, links.invitation_url(cfg_of(app), row.id, row.nonce))


def mails_to(app: Any, address: str) -> list[OutboxMessage]:
    return [m for m in rows(app, OutboxMessage) if m.to_addr == address]


def test_the_invitation_page_shows_who_invites_and_the_game_and_changes_nothing(app, client):
    invite_bob(app, client, name="Friday game")
    page = client.get(bobs_page(app))
    html = text_of(page)
    assert page.status_code == 200
    assert "Ann invites you" in html and "Friday game" in html and "Time for each move: 2 days." in html
    assert f'action="{bobs_page(app)}/accept"' in html and f'action="{bobs_page(app)}/decline"' in html
    assert "data-never-link" in html
    assert "ann@example.com" not in html  # an invitee sees names, not the others' addresses
    assert client.head(bobs_page(app)).status_code == 200
    assert bobs_row(app).status == "invited"


def test_accepting_the_last_invitation_starts_the_game_and_links_its_page(app, client):
    proposal = invite_bob(app, client)
    response = client.post(bobs_page(app) + "/accept")
    html = text_of(response)
    assert response.status_code == 200 and 'data-answered="accepted"' in html
    assert 'data-game-link' in html and 'href="/g/' in html
    assert rows(app, Proposal)[0].status == "started" and rows(app, Proposal)[0].id == proposal.id


def test_accepting_while_others_have_not_says_the_game_starts_later(app, client):
    invite_bob(app, client, players="Bob <bob@example.com>\nCy <cy@example.com>")
    html = text_of(client.post(bobs_page(app) + "/accept"))
    assert "The game starts when everybody has accepted" in html and "data-game-link" not in html


def test_an_answer_is_given_once(app, client):
    invite_bob(app, client)
    assert client.post(bobs_page(app) + "/decline").status_code == 200
    for answer in ("/accept", "/decline"):
        assert client.post(bobs_page(app) + answer).status_code == 409
    assert bobs_row(app).status == "declined"


def test_declining_tells_nobody_will_email_about_this_game_and_bob_gets_nothing_more(app, client):
    invite_bob(app, client)
    before = len(mails_to(app, "bob@example.com"))
    html = text_of(client.post(bobs_page(app) + "/decline"))
    assert 'data-answered="declined"' in html and "Nobody will email you about this game" in html
    assert len(mails_to(app, "bob@example.com")) == before == 1


def test_a_replaced_invitees_old_link_is_403(app, client):
    proposal = invite_bob(app, client)
    old = bobs_page(app)
    client.post(old + "/decline")
    manage = path_of(app, links.proposal_url(cfg_of(app), proposal.id, proposal.nonce))
    client.post(manage + "/replace/1", data={"replacement": "friend", "friend_name": "Bobby",
                                             "friend_email": "bob@example.com"})
    assert client.get(old).status_code == 403
    assert client.post(old + "/accept").status_code == 403


@pytest.mark.parametrize("token", ["nonsense", "x" * 300])
def test_a_damaged_invitation_link_is_400_and_changes_nothing(app, client, token):
    invite_bob(app, client)
    assert client.get(f"/i/{token}").status_code == 400
    assert client.post(f"/i/{token}/accept").status_code == 400
    assert bobs_row(app).status == "invited"


def test_the_invitation_page_speaks_the_invitations_language(app, client):
    client.set_cookie("korsar_lang", "fr")
    invite_bob(app, client)  # Ann writes in French: Bob's invitation is in French
    bob = app.test_client()
    html = text_of(bob.get(bobs_page(app), headers={"Accept-Language": "en"}))
    assert 'lang="fr"' in html
    chosen = text_of(bob.get(bobs_page(app) + "?lang=vi"))
    assert 'lang="vi"' in chosen  # unless Bob chose a language


# ---------------------------------------------------------------- never email me again
def never_path(app: Any, address: str) -> str:
    return path_of(app, links.never_url(cfg_of(app), address))


def test_never_email_asks_first_then_suppresses_and_declines_the_invitation(app, client):
    invite_bob(app, client)
    question = client.get(never_path(app, "bob@example.com"))
    assert question.status_code == 200 and 'data-done="no"' in text_of(question)
    assert rows(app, Suppression) == []
    done = client.post(never_path(app, "bob@example.com"))
    assert done.status_code == 200
    assert "we will never email bob@example.com again" in text_of(done)
    assert [s.email for s in rows(app, Suppression)] == ["bob@example.com"]
    assert bobs_row(app).status == "declined"


def test_never_email_answers_the_one_click_post_of_mail_clients(app, client):
    invite_bob(app, client)
    response = client.post(never_path(app, "bob@example.com"), data={"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert [s.email for s in rows(app, Suppression)] == ["bob@example.com"]


def test_a_damaged_never_link_is_400_and_suppresses_nothing(app, client):
    assert client.get("/never/nonsense").status_code == 400
    assert client.post("/never/nonsense").status_code == 400
    assert rows(app, Suppression) == []
