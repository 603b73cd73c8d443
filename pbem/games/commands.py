"""`flask --app pbem create-game ...` and `flask --app pbem export-game ID`.

Bad input exits non-zero with a one-line reason and creates nothing; create-game prints the
new game's id alone on its last line, so scripts can read it with `tail -n1`.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from flask.cli import with_appcontext
from sqlalchemy.exc import OperationalError, ProgrammingError

from pbem.db import session_scope
from pbem import i18n
from pbem.games import proposals, records, service, setup
from pbem.games.settings import DEFAULT_SETTINGS, read_settings
from pbem.models import OnTimeout
from pbem.appctx import config, db
from pbem.refusals import Refusal

NOT_READY = "The database is not ready: run `flask --app pbem init-db` first."


@contextmanager
def _refusals() -> Iterator[None]:
    """A refused command exits non-zero with its one-line reason in English (nothing was written)."""
    try:
        yield
    except Refusal as exc:
        raise click.ClickException(exc.text(i18n.DEFAULT)) from None
    except (OperationalError, ProgrammingError):
        raise click.ClickException(NOT_READY) from None


def _number(text: str | None, what: str, kind: type = int) -> float | int | None:
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        raise click.ClickException(f"{what} must be a number, not {text!r}.") from None


def _deck(path: str | None) -> list[str] | None:
    if path is None:
        return None
    try:
        deck = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise click.ClickException(f"Cannot read the deck file {path}: {exc.strerror}.") from None
    except ValueError:
        raise click.ClickException(f"The deck file {path} is not JSON (a list of 78 card codes).") from None
    if not isinstance(deck, list):
        raise click.ClickException("The deck file must hold a JSON list of 78 card codes.")
    return deck


def _options(pairs: tuple[str, ...]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.ClickException(f"An option is written key=value, not {pair!r}.")
        options[key.strip()] = value.strip()
    return options


@click.command("create-game")
@click.option("--player", "players", multiple=True, metavar='"NAME <EMAIL> [fr]"|bot:expert|bot:greedy|bot:random',
              help="A seat, in seat order (repeat the option). A person's may end with their language "
                   "in brackets: [en], [fr] or [vi] (default: the language the address chose last, "
                   "else English).")
@click.option("--teams", is_flag=True, help="Team play (4, 6 or 8 players; neighbours are partners).")
@click.option("--seed", help="Shuffle with this seed: a predictable deal, for tests and replays only "
                             "(default: dealt from the system's randomness).")
@click.option("--deck-file", help="JSON list of the 78 card codes, dealt in order (R2.2): a known deal, "
                                  "for tests and replays only.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
              help="waiting_time=on|off, end_settlement=resolve|none.")
@click.option("--name", default="", help="The game's name (default: the players' names).")
@click.option("--deadline-hours", default=f"{DEFAULT_SETTINGS.deadline_hours:g}", help="Hours a player has for a turn.")
@click.option("--reminders", default=DEFAULT_SETTINGS.reminders, help="Reminders at these percentages of the deadline.")
@click.option("--on-timeout", default=str(DEFAULT_SETTINGS.on_timeout), help=" | ".join(OnTimeout))
@click.option("--table-talk", is_flag=True, help="Players of an individual game may talk to the whole "
                                                 "table by replying (partners in team games always may).")
@click.option("--invite-from", "organiser", metavar="EMAIL",
              help="Ask the players first: each gets one invitation and the game starts when all have "
                   "accepted; declines and expiries are emailed to EMAIL. Prints the page to manage it "
                   "on the last line. Without it the game starts now: only for people who agreed.")
@with_appcontext
def create_game_command(players: tuple[str, ...], teams: bool, seed: str | None,
                        deck_file: str | None, options: tuple[str, ...], name: str,
                        deadline_hours: str, reminders: str, on_timeout: str, table_talk: bool,
                        organiser: str | None) -> None:
    """Create and start a game; print its id alone on the last line."""
    deck = _deck(deck_file)
    if organiser and (seed is not None or deck is not None):
        raise click.ClickException("--invite-from deals when the game starts: no --seed or --deck-file.")
    number_seed = _number(seed, "The seed")
    settings, unread = read_settings(
        name=name, teams=teams, options=_options(options),
        deadline_hours=_number(deadline_hours, "The deadline", float),  # type: ignore[arg-type]  # _number gives the kind asked
        reminders=reminders, on_timeout=on_timeout, table_talk=table_talk)
    if organiser:
        with _refusals(), session_scope(db()) as session:
            view = proposals.invite_players(session, config(), list(players), settings,
                                            organiser_email=setup.check_email(organiser), unread=unread)
            summary = f"invited {len(view.waiting)} players; the game starts when all have accepted"
            manage_url = view.manage_url
        click.echo(summary)
        click.echo(manage_url)
        return
    with _refusals(), session_scope(db()) as session:
        game = service.create_game(
            session, config(), list(players), settings, unread=unread,
            seed=number_seed, deck=deck)  # type: ignore[arg-type]  # _number gives the kind asked
        # Never the seed or the deck: they give away every hand and the draw pile.
        dealt = ("the given seed" if game.seed is not None else
                 "the deck file" if deck is not None else "the system's randomness")
        summary = f"created game {game.id}: {game.name} ({len(players)} players, dealt from {dealt})"
        game_id = game.id
    click.echo(summary)
    click.echo(str(game_id))


@click.command("export-game")
@click.argument("game_id", type=int)
@with_appcontext
def export_game_command(game_id: int) -> None:
    """Print a finished or aborted game as a record for `python -m engine replay` (players, teams,
    options, deck, moves). A game still being played is refused: its deck gives away the deal."""
    with _refusals(), session_scope(db()) as session:
        record = records.export_record(session, game_id)
    click.echo(json.dumps(record, indent=2))
