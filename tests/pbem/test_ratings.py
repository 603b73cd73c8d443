"""Ratings (pbem/games/ratings.py): a game played to its end moves each human's rating exactly as
openskill's Plackett-Luce does for the same sides and ranks (the test calls openskill itself);
teams as teams, 5 players, a leaver last, bots at fixed ratings; an aborted game counts for
nobody; an admin's exclusion replays the affected ratings, and its undo restores them."""
from __future__ import annotations

from datetime import timedelta

import engine
import pytest
from game_helpers import cfg_of, db_of, game_page_path, game_row, seats, start_game
from openskill.models import PlackettLuce
from sqlmodel import select
from test_seat_actions import play_to_the_end

from pbem import i18n, store
from pbem.db import read_scope, session_scope
from pbem.games import leaderboard, lifecycle, ratings, service
from pbem.games.errors import GameError
from pbem.games.seated import lock_seated
from pbem.letters import notify
from pbem.models import AuditLog, Game, utcnow
from pbem.models_ratings import RatedGame, Rating, RatingChange
from pbem.present.ratings import points, rating_text

ANN, BOB, CAT, DAN, EVE = (f"{n} <{n.lower()}@example.com>" for n in ("Ann", "Bob", "Cat", "Dan", "Eve"))
MODEL = PlackettLuce()


def key(player: str) -> str:
    return player.split("<")[1].rstrip(">")


def stored(app, player: str, mode: str = "individual") -> Rating | None:
    with read_scope(db_of(app)) as s:
        return s.get(Rating, (key(player), mode))


def final_scores(app, game_id: int) -> list[int]:
    state = store.load_state(game_row(app, game_id))
    return list(engine.team_scores(state) or []) if state.teams else engine.scores(state)


def openskill_ranks(scores: list[int], last: set[int] = frozenset()) -> list[int]:  # type: ignore[assignment]
    """Ranks as the rules of the ratings say: higher score first, ties shared, leavers last."""
    stayed = [v for i, v in enumerate(scores) if i not in last]
    return [len(stayed) + 1 if i in last else 1 + sum(o > v for o in stayed) for i, v in enumerate(scores)]


def test_a_game_against_a_bot_moves_each_human_as_openskill_does(app):
    game_id = start_game(app, [ANN, BOB, "bot:greedy"], seed=3)
    play_to_the_end(app, game_id)
    ranks = openskill_ranks(final_scores(app, game_id))
    bot = MODEL.rating(*ratings.BOT_RATINGS["greedy"])
    [[a], [b], [_bot]] = MODEL.rate([[MODEL.rating()], [MODEL.rating()], [bot]], ranks=ranks)
    for player, want in ((ANN, a), (BOB, b)):
        row = stored(app, player)
        assert row is not None and row.games == 1
        assert (row.mu, row.sigma) == pytest.approx((want.mu, want.sigma))
    state = store.load_state(game_row(app, game_id))
    assert stored(app, ANN).wins == int(0 in engine.winners(state))  # type: ignore[union-attr]


def test_a_five_player_game_and_then_another_chain_the_ratings(app):
    players = [ANN, BOB, CAT, DAN, EVE]
    expected = {key(p): MODEL.rating() for p in players}
    for seed in (3, 4):
        game_id = start_game(app, players, seed=seed)
        play_to_the_end(app, game_id)
        ranks = openskill_ranks(final_scores(app, game_id))
        after = MODEL.rate([[expected[key(p)]] for p in players], ranks=ranks)
        expected = {key(p): new for p, [new] in zip(players, after)}
    for p in players:
        row = stored(app, p)
        assert row is not None and row.games == 2
        assert (row.mu, row.sigma) == pytest.approx((expected[key(p)].mu, expected[key(p)].sigma))


def test_a_team_game_rates_the_teams_as_teams(app):
    game_id = start_game(app, [ANN, BOB, CAT, DAN], seed=5, teams=True)
    play_to_the_end(app, game_id)
    ranks = openskill_ranks(final_scores(app, game_id))  # team 0: seats 0 and 1; team 1: seats 2 and 3
    [[a, b], [c, d]] = MODEL.rate([[MODEL.rating(), MODEL.rating()], [MODEL.rating(), MODEL.rating()]], ranks=ranks)
    for player, want in zip((ANN, BOB, CAT, DAN), (a, b, c, d)):
        row = stored(app, player, "teams")
        assert row is not None and (row.mu, row.sigma) == pytest.approx((want.mu, want.sigma))
        assert stored(app, player, "individual") is None  # the modes are apart


def test_a_seat_that_left_counts_as_last(app):
    game_id = start_game(app, [ANN, BOB, CAT], seed=7)
    with session_scope(db_of(app)) as s:
        lifecycle.leave_game(s, cfg_of(app), lock_seated(s, game_id, 0), now=utcnow())
    play_to_the_end(app, game_id)  # a bot plays Ann's seat to the end
    ranks = openskill_ranks(final_scores(app, game_id), last={0})
    assert ranks[0] == 3
    after = MODEL.rate([[MODEL.rating()] for _ in range(3)], ranks=ranks)
    for player, [want] in zip((ANN, BOB, CAT), after):
        row = stored(app, player)
        assert row is not None and (row.mu, row.sigma) == pytest.approx((want.mu, want.sigma))
    assert stored(app, ANN).wins == 0 and stored(app, ANN).mu < MODEL.mu  # type: ignore[union-attr]


def test_an_aborted_game_and_a_bots_only_game_rate_nobody(app):
    aborted = start_game(app, [ANN, BOB], seed=3)
    with session_scope(db_of(app)) as s:
        lifecycle.abort_game(s, cfg_of(app), aborted, now=utcnow(), actor="admin@example.com")
    bots_only = start_game(app, ["bot:random", "bot:greedy"], seed=5)
    play_to_the_end(app, bots_only)
    with read_scope(db_of(app)) as s:
        assert s.exec(select(Rating)).all() == [] and s.exec(select(RatedGame)).all() == []


def test_a_finished_game_rated_again_changes_nothing(app):
    game_id = start_game(app, [ANN, BOB], seed=3)
    play_to_the_end(app, game_id)
    before = stored(app, ANN)
    with session_scope(db_of(app)) as s:  # as a second worker's finish would
        game = game_row(app, game_id)
        ratings.rate_finished_game(s, cfg_of(app), game, seats(app, game_id), store.load_state(game), "played")
    after = stored(app, ANN)
    assert before is not None and after is not None and (after.mu, after.games) == (before.mu, before.games)


def _three_games(app) -> list[int]:
    ids = []
    for players, seed in (([ANN, BOB, CAT], 3), ([BOB, CAT], 4), ([ANN, DAN], 5)):
        game_id = start_game(app, players, seed=seed)
        play_to_the_end(app, game_id)
        ids.append(game_id)
    return ids


def _replayed_by_openskill(app, game_ids: list[int], players: list[list[str]]) -> dict[str, tuple[float, float]]:
    now = {}
    for game_id, table in zip(game_ids, players):
        ranks = openskill_ranks(final_scores(app, game_id))
        after = MODEL.rate([[now.get(key(p), MODEL.rating())] for p in table], ranks=ranks)
        now.update({key(p): new for p, [new] in zip(table, after)})
    return {k: (r.mu, r.sigma) for k, r in now.items()}


def flat(ratings_by_key: dict[str, tuple[float, float]]) -> dict[str, float]:
    return {f"{k} {part}": v for k, pair in ratings_by_key.items() for part, v in zip(("mu", "sigma"), pair)}


def test_an_excluded_game_is_replayed_out_and_its_undo_puts_it_back(app):
    first, second, third = _three_games(app)
    tables = [[ANN, BOB, CAT], [BOB, CAT], [ANN, DAN]]
    original = {key(p): (stored(app, p).mu, stored(app, p).sigma) for p in (ANN, BOB, CAT, DAN)}  # type: ignore[union-attr]
    assert flat(original) == pytest.approx(flat(_replayed_by_openskill(app, [first, second, third], tables)))

    with session_scope(db_of(app)) as s:
        replayed = ratings.set_excluded(s, first, True, actor="admin@example.com")
    assert replayed == sorted(key(p) for p in (ANN, BOB, CAT, DAN))  # Dan through Ann's next game
    want = _replayed_by_openskill(app, [second, third], tables[1:])
    for p in (ANN, BOB, CAT, DAN):
        row = stored(app, p)
        assert row is not None and (row.mu, row.sigma) == pytest.approx(want[key(p)])
    assert stored(app, ANN).games == 1 and stored(app, BOB).games == 1  # type: ignore[union-attr]
    with read_scope(db_of(app)) as s:
        assert all(c.excluded for c in s.exec(select(RatingChange).where(RatingChange.game_id == first)).all())
        audited = s.exec(select(AuditLog).where(AuditLog.game_id == first)).all()
        assert [a.action for a in audited] == ["ratings_exclude"]

    with session_scope(db_of(app)) as s:
        ratings.set_excluded(s, first, False, actor="admin@example.com")
    for p in (ANN, BOB, CAT, DAN):
        row = stored(app, p)
        assert row is not None and (row.mu, row.sigma) == pytest.approx(original[key(p)])
    assert stored(app, ANN).games == 2  # type: ignore[union-attr]


def test_excluding_a_game_nobody_rated_is_refused(app):
    game_id = start_game(app, [ANN, BOB], seed=3)
    with session_scope(db_of(app)) as s, pytest.raises(GameError) as refused:
        ratings.set_excluded(s, game_id, True, actor="admin@example.com")
    assert refused.value.code == "game_not_rated"


@pytest.mark.parametrize(("language", "games", "shown"), [
    ("en", 1, "1,512?"), ("en", 5, "1,512"), ("fr", 9, "1\u202f512"), ("fr", 2, "1\u202f512\u202f?"),
    ("vi", 7, "1.512"),
])
def test_a_rating_is_written_in_the_readers_numbers_and_provisional_below_five_games(language, games, shown):
    with i18n.using(language):
        assert rating_text(1512, games) == shown


def test_the_shown_scale_is_openskills_ordinal():
    for mu, sigma in ((25.0, 25 / 3), (31.2, 2.4), (18.0, 5.5)):
        assert points(mu, sigma) == round(MODEL.rating(mu=mu, sigma=sigma).ordinal(3.0, 20.0, 1500.0))
    assert points(MODEL.mu, MODEL.sigma) == 1500  # a newcomer


def test_ranks_share_ties_and_put_leavers_last():
    assert ratings.ranks([10, 30, 30, 5], [False, False, False, False]) == [3, 1, 1, 4]
    assert ratings.ranks([40, 30, 20], [True, False, True]) == [2, 1, 2]


def test_leaderboard_lists_only_who_opted_in_under_their_chosen_name(app):
    game_id = start_game(app, [ANN, BOB], seed=3)
    play_to_the_end(app, game_id)
    with session_scope(db_of(app)) as s:
        assert leaderboard.leaderboard(s, "individual") == []  # off by default
        leaderboard.set_listed(s, "ann+korsar@example.com", "  Captain Ann ")
    with session_scope(db_of(app)) as s:
        board = leaderboard.leaderboard(s, "individual")
        assert [line.name for line in board] == ["Captain Ann"]
        with pytest.raises(GameError) as taken:
            leaderboard.set_listed(s, "bob@example.com", "captain ann")
        assert taken.value.code == "leaderboard_name_taken"
        with pytest.raises(GameError) as hidden:
            leaderboard.set_listed(s, "bob@example.com", "Bo\u200bb")
        assert hidden.value.code == "name_invisible"
        leaderboard.set_listed(s, "ann@example.com", None)
    with read_scope(db_of(app)) as s:
        assert leaderboard.leaderboard(s, "individual") == []


def test_two_mailboxes_never_hold_one_leaderboard_name_even_past_the_check(app):
    """The check in set_listed reads first; the unique index on lower(display_name) holds when two
    mailboxes choose the name at the same moment (both past the check)."""
    from sqlalchemy.exc import IntegrityError

    from pbem.models_ratings import LeaderboardEntry

    with session_scope(db_of(app)) as s:
        leaderboard.set_listed(s, "ann@example.com", "Captain Ann")
    with pytest.raises(IntegrityError):
        with session_scope(db_of(app)) as s:
            s.add(LeaderboardEntry(key="bob@example.com", display_name="CAPTAIN ANN"))
    with session_scope(db_of(app)) as s:
        leaderboard.set_listed(s, "ann@example.com", "captain ann")  # one's own name, in another case
    with read_scope(db_of(app)) as s:
        assert leaderboard.listed_name(s, "ann@example.com") == "captain ann"


def test_history_starts_where_the_first_game_started(app):
    for seed in (3, 4):
        game_id = start_game(app, [ANN, BOB], seed=seed)
        play_to_the_end(app, game_id)
    with read_scope(db_of(app)) as s:
        [mine] = ratings.ratings_of(s, "ANN@example.com")
    assert mine.games == 2 and mine.provisional and len(mine.history) == 3
    assert mine.history[0].points == 1500 and mine.history[-1].points == mine.points
    assert utcnow() - mine.history[-1].at < timedelta(minutes=5)


def test_the_game_over_email_and_the_game_page_show_each_humans_change(app):
    game_id = start_game(app, [ANN, BOB, "bot:greedy"], seed=3)
    play_to_the_end(app, game_id)
    ann, bob = stored(app, ANN), stored(app, BOB)
    assert ann is not None and bob is not None
    with session_scope(db_of(app)) as s:
        game, seat = s.get(Game, game_id), service.seats_of(s, game_id)[0]
        email = notify.game_over_email(s, cfg_of(app), game, seat)
    text, html = email.text_body, email.html_body or ""
    block = text.split("RATINGS")[1].split("\n\n")[0]
    for name, row in (("You", ann), ("Bob", bob)):  # Ann reads her own line as "You"
        after = rating_text(points(row.mu, row.sigma), 1)
        assert f"{name}: 1,500? \u2192 {after} (" in block
        assert f"1,500?\u00a0\u2192 {after}" in html or f"1,500?&nbsp;\u2192 {after}" in html
    assert "Greedy" not in block and "provisional" in block  # bots have no rating shown
    page = app.test_client().get(game_page_path(text))
    assert page.status_code == 200 and b"data-rating-changes" in page.data
    changes = page.text.split("data-rating-changes")[1].split("</section>")[0]
    assert ">You<" in changes and "Bob" in changes and "Ann" not in changes


def test_an_aborted_game_shows_no_rating_block(app):
    game_id = start_game(app, [ANN, BOB], seed=3)
    with session_scope(db_of(app)) as s:
        lifecycle.abort_game(s, cfg_of(app), game_id, now=utcnow(), actor="admin@example.com")
    with read_scope(db_of(app)) as s:
        assert s.exec(select(RatingChange)).all() == []


def test_a_game_with_two_erased_players_still_replays_for_the_others(app):
    """Erased players leave the line-up as fixed strengths (what they had then): an exclusion
    replays the others as before, and nobody gets a rating row in their place."""
    from pbem.games.privacy import erase_address
    first, second, _third = _three_games(app)
    cat_before = (stored(app, CAT).mu, stored(app, CAT).sigma)  # type: ignore[union-attr]
    with read_scope(db_of(app)) as s:
        bob = s.exec(select(RatingChange).where(RatingChange.game_id == second, RatingChange.key == key(BOB))).one()
        bob_then = MODEL.rating(mu=bob.mu_before, sigma=bob.sigma_before)  # what Bob had before game 2
    with session_scope(db_of(app)) as s:
        for player in (ANN, BOB):
            erase_address(s, cfg_of(app), key(player), never=False, actor="admin@example.com")
    with session_scope(db_of(app)) as s:
        assert ratings.set_excluded(s, first, True, actor="admin@example.com") == [key(CAT)]
    [[_bob], [cat]] = MODEL.rate([[bob_then], [MODEL.rating()]], ranks=openskill_ranks(final_scores(app, second)))
    row = stored(app, CAT)
    assert row is not None and (row.mu, row.sigma) == pytest.approx((cat.mu, cat.sigma))
    with session_scope(db_of(app)) as s:
        ratings.set_excluded(s, first, False, actor="admin@example.com")
    assert (stored(app, CAT).mu, stored(app, CAT).sigma) == pytest.approx(cat_before)  # type: ignore[union-attr]
    with read_scope(db_of(app)) as s:
        assert sorted(r.key for r in s.exec(select(Rating)).all()) == [key(CAT), key(DAN)]
        assert {c.key for c in s.exec(select(RatingChange)).all()} == {key(CAT), key(DAN)}
