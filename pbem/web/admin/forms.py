"""The dashboard's forms (Flask-WTF: every one carries the session CSRF token)."""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engine
import engine.bots
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    EmailField,
    FieldList,
    FloatField,
    Form,
    FormField,
    PasswordField,
    SelectField,
    StringField,
)
from wtforms import SelectChoice  # type: ignore[attr-defined]  # new in WTForms 3.3; types-WTForms 3.2 lacks it
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional, ValidationError

from pbem.games.errors import GameError
from pbem.games.settings import (DEFAULT_SETTINGS, MAX_DEADLINE_HOURS, GameSettings, SettingsProblem,
                                 read_settings)
from pbem.games.setup import SeatSpec, check_email, setup_problems
from pbem.letters.invitations import ON_TIMEOUT_WORDS
from pbem.games.names import MAX_GAME_NAME_LENGTH, MAX_NAME_LENGTH
from pbem.i18n import LANGUAGES
from pbem.models import SeatKind

MAX_SEATS = 8
BOT_NAMES = engine.bots.BOTS  # the engine's bots, so a new one shows up here
# The levels first (beginner, greedy, expert...), then the bots kept for experiments, marked.
BOT_CHOICES = [(b, f"{b} bot") for b in engine.bots.LEVELS] + [
    (b, f"{b} bot (experiments)") for b in BOT_NAMES if b not in engine.bots.LEVELS]


class EmailAddress:
    """The service's own email address check (`check_email`), shown next to the field."""

    def __call__(self, form: Form, field: StringField) -> None:
        if field.data:
            try:
                check_email(field.data)
            except GameError as exc:
                raise ValidationError(exc.message) from None


# Control characters (but tab and newline) mean nothing in a name, an address or a reason, and
# PostgreSQL cannot store a NUL at all (the query failed: a 500).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def has_control_characters(text: str) -> bool:
    return _CONTROL.search(text) is not None


class PlainText:
    """A field without control characters."""

    def __call__(self, form: Form, field: StringField) -> None:
        if field.data and has_control_characters(field.data):
            raise ValidationError("Remove the control characters (such as NUL) from this field.")


class LoginForm(FlaskForm):
    email = EmailField("Email", validators=[DataRequired(), Length(max=254), PlainText()])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=1000)])


class ButtonForm(FlaskForm):
    """A form with no fields: a button whose POST only needs the CSRF token."""


class PlayerRow(Form):
    # The limits are the service's (`check_name`), whose sentences the form shows: no Length here.
    name = StringField("Name", validators=[Optional()], render_kw={"maxlength": MAX_NAME_LENGTH})
    email = StringField("Email", validators=[Optional()])  # checked with the whole setup
    kind = SelectField(
        "Plays as",
        choices=[SelectChoice("human", "a person")] + [SelectChoice(f"bot:{b}", label) for b, label in BOT_CHOICES],
        default="human",
    )
    # Blank: the language the address chose last (its preferences page), else English.
    language = SelectField(
        "Language",
        choices=[SelectChoice("", "as last time")] + [SelectChoice(c, n) for c, n in LANGUAGES.items()],
        default="",
    )


@dataclass(frozen=True)
class PlayerEntry:
    """One filled-in player row of the create form."""

    name: str
    email: str | None
    bot: str | None
    row: int = 0  # its row in the form (rows left empty are skipped)
    language: str | None = None

    def spec(self) -> SeatSpec:
        if self.bot is None:
            return SeatSpec(name=self.name, email=self.email, language=self.language)
        return SeatSpec(name=self.name, kind=SeatKind.BOT, bot=self.bot)


class CreateGameForm(FlaskForm):
    name = StringField("Game name", validators=[Optional()], render_kw={"maxlength": MAX_GAME_NAME_LENGTH})
    players = FieldList(FormField(PlayerRow), min_entries=MAX_SEATS, max_entries=MAX_SEATS)
    teams = BooleanField("Team play (4, 6 or 8 players; neighbours are partners)")
    # No seed field: a seed an admin types is a deal anyone can guess. Every game made here is
    # dealt from the system's randomness (the CLI's --seed/--deck-file are for tests and replays).
    end_settlement = SelectField(
        "Ships left on the table at the end",
        choices=[SelectChoice("resolve", "go to whoever would capture them"),
                 SelectChoice("none", "score for nobody")],
        default=str(DEFAULT_SETTINGS.options.end_settlement),
    )
    waiting_time = BooleanField("Waiting time house rule (2 or 3 players only)")
    table_talk = BooleanField("Table talk: players may write to the whole table (partners in team games always may)")
    # Consent: by default each person gets one invitation and nothing else until they accept
    # (pbem/games/invitations.py); unchecked, the game starts at once (they agreed elsewhere).
    invite_first = BooleanField("Ask the players first: each gets one invitation, and the game starts when "
                                "all have accepted", default=True)
    # Its bounds are the service's (`check_deadline_hours`, with the whole setup): no NumberRange here.
    deadline_hours = FloatField("Hours per turn", default=int(DEFAULT_SETTINGS.deadline_hours),  # "72", not "72.0"
                                validators=[InputRequired(message="Give the hours a player has per turn.")])
    reminders = StringField("Reminders (percent of the deadline)", default=DEFAULT_SETTINGS.reminders,
                            validators=[Length(max=100)])
    on_timeout = SelectField(
        "When a player runs out of time",
        choices=[SelectChoice(str(choice), words.admin) for choice, words in ON_TIMEOUT_WORDS.items()],
        default=str(DEFAULT_SETTINGS.on_timeout),
    )

    def settings(self) -> tuple[GameSettings, list[SettingsProblem]]:
        """The form's GameSettings, by the one reader every entry uses."""
        return read_settings(
            name=(self.name.data or "").strip(), teams=bool(self.teams.data),
            options={name: getattr(self, name).data for name in engine.Options.names()},
            deadline_hours=(self.deadline_hours.data if self.deadline_hours.data is not None
                            else DEFAULT_SETTINGS.deadline_hours),
            reminders=(self.reminders.data or "").strip(), on_timeout=self.on_timeout.data or "",
            table_talk=bool(self.table_talk.data))

    def entries(self) -> list[PlayerEntry]:
        out = []
        for index, row in enumerate(self.players):
            name = (row.form.name.data or "").strip()
            email = (row.form.email.data or "").strip() or None
            kind = row.form.kind.data or "human"
            bot = kind.split(":", 1)[1] if kind.startswith("bot:") else None
            if name or email or bot:
                if bot and not name:
                    name = f"{bot.capitalize()} bot"
                out.append(PlayerEntry(name=name, email=None if bot else email, bot=bot, row=index,
                                       language=row.form.language.data or None))
        return out

    def validate(self, extra_validators: Mapping[str, Sequence[Any]] | None = None) -> bool:
        """The fields' own checks, then the game service's setup check (`setup_problems`, the
        one the CLI gets): each of its sentences next to the field it is about."""
        ok = super().validate(extra_validators)
        entries = self.entries()
        settings, unread = self.settings()
        problems = setup_problems([e.spec() for e in entries], settings, unread=unread)
        for problem in problems:
            field = self._field_of(entries, problem.seat, problem.field)
            if field is None:
                self.form_errors.append(problem.message)
            elif not field.errors:  # one sentence per field: the field's own check came first
                field.errors = [*field.errors, problem.message]
        return ok and not problems

    def _field_of(self, entries: list[PlayerEntry], seat: int | None, name: str | None) -> Any:
        if name is None:
            return None
        if seat is None:
            return getattr(self, name, None)
        row = self.players[entries[seat].row].form
        return row.kind if name == "bot" else getattr(row, name, None)


class ExtendDeadlineForm(FlaskForm):
    hours = FloatField("Extra hours", default=24,
                       validators=[InputRequired(message="How many hours?"),
                                   NumberRange(min=1, max=MAX_DEADLINE_HOURS, message="Between 1 and 720 hours.")])


class ChangeEmailForm(FlaskForm):
    email = StringField("New email", validators=[DataRequired(message="Give the new address."), EmailAddress()])


class SeatLanguageForm(FlaskForm):
    language = SelectField("Language", choices=[SelectChoice(c, n) for c, n in LANGUAGES.items()],
                           validators=[DataRequired(message="Choose a language.")])


class HandToBotForm(FlaskForm):
    bot = SelectField("Bot", choices=[SelectChoice(b, label) for b, label in BOT_CHOICES],
                      default="greedy")
