"""The pages to start a game (/new), with the Flask test client: the form, its errors on their
fields (422, nothing created, what was typed kept), success (one proposal, one email, to the
creator only), the creator's confirmation page (GET inert, POST single use) and the creator's
page (replace a seat, cancel), and the 429 page at a limit."""
from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from game_helpers import cfg_of, db_of
from sqlmodel import Session, col, select

from pbem import links
from pbem.games import limits
from pbem.models import Invitation, OutboxMessage, Proposal, utcnow

FORM = {"your_name": "Ann", "your_email": "ann@example.com", "players": "bot:greedy\nbot:random",
        "name": "Friday game", "deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay"}


def text_of(response: Any) -> str:
    return response.get_data(as_text=True)


def rows(app: Any, model: Any) -> list[Any]:
    with Session(db_of(app)) as s:
        return list(s.exec(select(model).order_by(col(model.id))))


def propose(client: Any, **changes: str) -> Any:
    return client.post("/new", data={**FORM, **changes})


def only_proposal(app: Any) -> Proposal:
    (proposal,) = rows(app, Proposal)
    return proposal


def confirm_path(app: Any, proposal: Proposal) -> str:
    return links.confirm_url(cfg_of(app), proposal.id, proposal.nonce)[len(cfg_of(app).BASE_URL):]


def manage_path(app: Any, proposal: Proposal) -> str:
    return links.proposal_url(cfg_of(app), proposal.id, proposal.nonce)[len(cfg_of(app).BASE_URL):]


# ---------------------------------------------------------------- the form
def test_the_form_has_the_fields_the_acceptance_tests_use_and_lists_the_bots(client):
    page = text_of(client.get("/new"))
    for name in ("your_name", "your_email", "players", "teams", "name", "deadline_hours", "reminders",
                 "on_timeout", "table_talk"):
        assert f'name="{name}"' in page, name
    assert re.search(r'<option value="72" selected>', page)
    assert 'value="50,85"' in page
    assert "bot:greedy" in page and "bot:random" in page
    assert "confirmation link" in page and "decline" in page


def test_errors_show_on_their_field_keep_what_was_typed_and_create_nothing(app, client):
    response = propose(client, your_email="not-an-address", players="Bob <bob@example.com>\nnonsense line")
    page = text_of(response)
    assert response.status_code == 422
    assert 'data-error="your_email"' in page
    assert 'data-line="2"' in page and "nonsense line" in page
    assert 'value="not-an-address"' in page and "Bob &lt;bob@example.com&gt;\nnonsense line" in page
    assert rows(app, Proposal) == [] and rows(app, OutboxMessage) == []


def test_a_missing_name_is_shown_beside_the_name_field(app, client):
    response = propose(client, your_name="")
    assert response.status_code == 422
    assert 'data-error="your_name"' in text_of(response)
    assert rows(app, Proposal) == []


@pytest.mark.parametrize("deadline", ["abc", "nan", "1e309", ""])
def test_a_deadline_that_is_not_a_number_is_refused_on_its_field(app, client, deadline):
    response = propose(client, deadline_hours=deadline)
    assert response.status_code == 422
    assert 'data-error="deadline_hours"' in text_of(response)
    assert rows(app, Proposal) == []


def test_success_creates_one_proposal_and_emails_the_creator_only(app, client):
    response = propose(client, players="Bob <bob@example.com>\nbot:greedy")
    assert response.status_code == 303 and response.headers["Location"].endswith("/new/sent")
    proposal = only_proposal(app)
    assert proposal.status == "unconfirmed" and proposal.creator_email == "ann@example.com"
    assert [m.to_addr for m in rows(app, OutboxMessage)] == ["ann@example.com"]
    sent = text_of(client.get("/new/sent"))
    assert "ann@example.com" in sent and "Nobody else is emailed until you confirm" in sent


def test_the_sent_page_without_a_submitted_form_names_no_address(client):
    response = client.get("/new/sent")
    assert response.status_code == 200 and "@" not in re.sub(r"<[^>]+>", "", text_of(response).split("<main>")[1])


def test_a_limit_reached_answers_429_with_when_to_try_again(app, client, monkeypatch):
    def refuse(*_args: Any, **_kwargs: Any) -> None:
        raise limits.LimitReached(limits.LINKS_PER_ADDRESS, utcnow() + timedelta(minutes=30))

    monkeypatch.setattr(limits, "take", refuse)
    response = propose(client)
    assert response.status_code == 429 and int(response.headers["Retry-After"]) > 0
    assert rows(app, Proposal) == []


def test_the_form_speaks_the_visitors_language_and_the_proposal_keeps_it(app, client):
    page = text_of(client.get("/new?lang=fr"))
    assert 'lang="fr"' in page
    propose(client)  # the cookie left by ?lang= chose French
    assert only_proposal(app).language == "fr"


# ---------------------------------------------------------------- the confirmation
def test_the_confirmation_page_changes_nothing_and_its_post_works_once(app, client):
    propose(client, players="Bob <bob@example.com>\nbot:greedy")
    proposal = only_proposal(app)
    path = confirm_path(app, proposal)
    for _ in range(2):
        page = client.get(path)
        assert page.status_code == 200 and f'action="{path}"' in text_of(page)
    assert client.head(path).status_code == 200
    assert only_proposal(app).status == "unconfirmed" and len(rows(app, OutboxMessage)) == 1

    response = client.post(path)
    # The same payload (a link signed in another second has another timestamp and signature).
    payload = manage_path(app, proposal).split(".")[0]
    assert response.status_code == 303 and payload in response.headers["Location"]
    assert only_proposal(app).status == "inviting"
    assert sorted(m.to_addr for m in rows(app, OutboxMessage)) == ["ann@example.com", "bob@example.com"]

    again = client.post(path)
    assert again.status_code == 409 and payload in text_of(again)
    assert client.get(path).status_code == 409
    assert len(rows(app, OutboxMessage)) == 2


def test_a_game_against_bots_starts_at_confirmation_and_its_page_links_the_game(app, client):
    propose(client)
    proposal = only_proposal(app)
    client.post(confirm_path(app, proposal))
    assert only_proposal(app).status == "started"
    page = text_of(client.get(manage_path(app, proposal)))
    assert 'data-game-link' in page and 'href="/g/' in page


@pytest.mark.parametrize("tamper", [lambda t: t[:-3] + "xyz", lambda t: "nonsense"])
def test_a_tampered_confirmation_link_is_400_and_changes_nothing(app, client, tamper):
    propose(client)
    proposal = only_proposal(app)
    token = confirm_path(app, proposal).split("/")[2]
    bad = f"/p/{tamper(token)}/confirm"
    assert client.get(bad).status_code == 400
    assert client.post(bad).status_code == 400
    assert only_proposal(app).status == "unconfirmed"


def test_a_confirmation_link_after_24_hours_is_410(app, client, monkeypatch):
    propose(client)
    proposal = only_proposal(app)
    path = confirm_path(app, proposal)
    later = __import__("time").time() + links.CONFIRM_MAX_AGE + 60
    monkeypatch.setattr("itsdangerous.timed.time.time", lambda: later)
    assert client.get(path).status_code == 410
    assert client.post(path).status_code == 410
    assert only_proposal(app).status == "unconfirmed"


def test_the_creators_link_does_not_confirm(app, client):
    propose(client)
    proposal = only_proposal(app)
    assert client.post(manage_path(app, proposal) + "/confirm").status_code == 400
    assert only_proposal(app).status == "unconfirmed"


# ---------------------------------------------------------------- the creator's page
def invited(app: Any, client: Any, players: str = "Bob <bob@example.com>\nbot:greedy") -> Proposal:
    propose(client, players=players)
    proposal = only_proposal(app)
    client.post(confirm_path(app, proposal))
    return proposal


def decline_path(app: Any, email: str) -> str:
    (row,) = [i for i in rows(app, Invitation) if i.email == email]
    return links.invitation_url(cfg_of(app), row.id, row.nonce)[len(cfg_of(app).BASE_URL):] + "/decline"


def test_the_creators_page_shows_each_seat_and_its_answer(app, client):
    proposal = invited(app, client)
    page = text_of(client.get(manage_path(app, proposal)))
    assert 'data-seat="0" data-status="accepted"' in page
    assert 'data-seat="1" data-status="invited"' in page and "bob@example.com" in page
    assert 'data-seat="2" data-status="accepted"' in page
    assert "data-replace" not in page  # nobody declined


def test_a_declined_seat_is_replaced_by_a_bot_and_the_game_starts(app, client):
    proposal = invited(app, client)
    client.post(decline_path(app, "bob@example.com"))
    page = text_of(client.get(manage_path(app, proposal)))
    assert 'data-seat="1" data-status="declined"' in page and 'data-replace="1"' in page
    response = client.post(manage_path(app, proposal) + "/replace/1", data={"replacement": "bot:random"})
    assert response.status_code == 303
    assert only_proposal(app).status == "started"


def test_once_someone_declined_the_proposal_page_says_so_before_its_state(app, client):
    proposal = invited(app, client)
    client.post(decline_path(app, "bob@example.com"))
    page = text_of(client.get(manage_path(app, proposal)))
    declined = page.index("Some friends will not play.")
    assert declined < page.index("Invitations sent: the game starts when everybody has accepted.")
    assert "it is the one from your confirmation email" in page  # a game set up at /new


def test_a_bad_replacement_friend_shows_beside_the_form_and_changes_nothing(app, client):
    proposal = invited(app, client)
    client.post(decline_path(app, "bob@example.com"))
    before = len(rows(app, OutboxMessage))
    response = client.post(manage_path(app, proposal) + "/replace/1",
                           data={"replacement": "friend", "friend_name": "Cy", "friend_email": "nope"})
    page = text_of(response)
    assert response.status_code == 422 and 'role="alert"' in page and 'value="nope"' in page
    assert len(rows(app, OutboxMessage)) == before
    assert [i.status for i in rows(app, Invitation) if i.position == 1] == ["declined"]


def test_a_seat_that_did_not_decline_cannot_be_replaced(app, client):
    proposal = invited(app, client)
    response = client.post(manage_path(app, proposal) + "/replace/1", data={"replacement": "bot:random"})
    assert response.status_code == 409
    assert only_proposal(app).status == "inviting"


def test_cancelling_asks_first_then_cancels_once(app, client):
    proposal = invited(app, client)
    question = client.get(manage_path(app, proposal) + "/cancel")
    assert question.status_code == 200 and 'method="post"' in text_of(question)
    assert only_proposal(app).status == "inviting"
    assert client.post(manage_path(app, proposal) + "/cancel").status_code == 303
    assert only_proposal(app).status == "cancelled"
    assert "data-cancel-link" not in text_of(client.get(manage_path(app, proposal)))
    assert client.post(manage_path(app, proposal) + "/cancel").status_code == 409


def test_the_creators_page_speaks_the_proposals_language(app, client):
    client.set_cookie("korsar_lang", "vi")
    propose(client)
    fresh = app.test_client()  # another browser, with English as its language
    page = text_of(fresh.get(manage_path(app, only_proposal(app)), headers={"Accept-Language": "en"}))
    assert 'lang="vi"' in page
