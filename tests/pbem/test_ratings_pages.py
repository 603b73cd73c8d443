"""The ratings' pages: /me shows each mode's rating, games played and won and its history (an SVG
chart with a <title> and a table, no script); the leaderboard lists only who opted in on /me,
under the chosen name, never an address; the admin sees every rating and excludes a game (and
counts it again) with a POST. GET changes nothing."""
from __future__ import annotations

import re

import pytest
from game_helpers import cfg_of, db_of, start_game
from sqlmodel import select
from test_seat_actions import play_to_the_end

from pbem import links
from pbem.db import read_scope
from pbem.models_ratings import LeaderboardEntry, RatedGame, Rating

ANN, BOB = "Ann <ann@example.com>", "Bob <bob@example.com>"


def me_path(app, email: str) -> str:
    return "/me/" + links.sign_address(cfg_of(app), links.MY_GAMES_SALT, email)


@pytest.fixture
def two_games(app) -> list[int]:
    ids = []
    for seed in (3, 4):
        game_id = start_game(app, [ANN, BOB, "bot:greedy"], seed=seed)
        play_to_the_end(app, game_id)
        ids.append(game_id)
    return ids


def test_my_page_shows_my_rating_its_games_and_a_chart_with_a_table(app, two_games):
    page = app.test_client().get(me_path(app, "ann@example.com")).get_data(as_text=True)
    section = page.split('id="ratings"')[1]
    assert 'data-rating-mode="individual"' in section and "2 games played" in section
    assert re.search(r'<svg [^>]*role="img" aria-labelledby="rating-chart-individual"', section)
    assert '<title id="rating-chart-individual">Rating over your last 2 games: from 1,500' in section
    assert section.count("<tr><td>") == 2  # the table beside the chart, one row a game
    assert "<script" not in section
    assert 'data-rating-mode="teams"' not in section  # no team game played


def test_a_newcomer_reads_when_a_rating_comes(app):
    page = app.test_client().get(me_path(app, "new@example.com")).get_data(as_text=True)
    assert "Your rating appears after your first game played to its end." in page


def test_the_leaderboard_is_empty_until_someone_opts_in_and_never_shows_an_address(app, two_games):
    client = app.test_client()
    assert b"Nobody is on the leaderboard yet." in client.get("/leaderboard").data
    path = me_path(app, "ann@example.com")
    answer = client.post(f"{path}/leaderboard", data={"listed": "on", "display_name": "Captain Ann"})
    assert answer.status_code == 303 and answer.headers["Location"].startswith(path)
    board = client.get("/leaderboard").get_data(as_text=True)
    assert "Captain Ann" in board and "@" not in board.split("<main>")[1].split("</main>")[0]
    assert "Bob" not in board  # Bob did not opt in
    assert 'checked' in client.get(path).get_data(as_text=True).split("data-leaderboard-form")[1].split("</label>")[0]
    client.post(f"{path}/leaderboard", data={"display_name": "Captain Ann"})  # unticked: off again
    assert b"Nobody is on the leaderboard yet." in client.get("/leaderboard").data


def test_a_refused_leaderboard_name_is_said_on_my_page(app, two_games):
    client = app.test_client()
    answer = client.post(f"{me_path(app, 'ann@example.com')}/leaderboard",
                         data={"listed": "on", "display_name": "An\u200bn"})
    assert answer.status_code == 400 and b"invisible characters" in answer.data
    with read_scope(db_of(app)) as s:
        assert s.exec(select(LeaderboardEntry)).all() == []


def test_get_pages_change_nothing(app, two_games):
    client = app.test_client()
    for path in ("/leaderboard", "/leaderboard?mode=teams", "/leaderboard?mode=nonsense",
                 me_path(app, "ann@example.com")):
        assert client.get(path).status_code == 200
    assert client.get(f"{me_path(app, 'ann@example.com')}/leaderboard").status_code == 405
    with read_scope(db_of(app)) as s:
        assert s.exec(select(LeaderboardEntry)).all() == []


def test_the_admin_sees_every_rating_and_excludes_a_game_then_counts_it_again(admin_client, two_games):
    page = admin_client.get("/admin/ratings").get_data(as_text=True)
    assert "ann@example.com" in page and f'data-rated-game="{two_games[0]}"' in page
    app = admin_client.application
    with read_scope(db_of(app)) as s:
        before = s.get(Rating, ("ann@example.com", "individual"))
    answer = admin_client.post(f"/admin/ratings/games/{two_games[0]}/exclude")
    assert answer.status_code == 303
    with read_scope(db_of(app)) as s:
        assert s.get(RatedGame, two_games[0]).excluded  # type: ignore[union-attr]
        assert s.get(Rating, ("ann@example.com", "individual")).games == 1  # type: ignore[union-attr]
    assert "Count again" in admin_client.get("/admin/ratings").get_data(as_text=True)
    admin_client.post(f"/admin/ratings/games/{two_games[0]}/include")
    with read_scope(db_of(app)) as s:
        after = s.get(Rating, ("ann@example.com", "individual"))
    assert before is not None and after is not None
    assert (after.mu, after.sigma, after.games) == pytest.approx((before.mu, before.sigma, before.games))
    assert admin_client.post(f"/admin/ratings/games/{two_games[0] + 100}/exclude").status_code == 409


def test_a_game_page_shows_no_rating_while_the_game_runs(app):
    game_id = start_game(app, [ANN, BOB], seed=3)
    from pbem.models import Seat
    with read_scope(db_of(app)) as s:
        seat = s.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == 0)).one()
        token = links.sign_seat(cfg_of(app), game_id, 0, seat.link_nonce)
    page = app.test_client().get(f"/g/{token}").data
    assert b"data-rating-changes" not in page
