"""The refusals of the game domain: every layer above catches them (`text()` for the reader,
`status` for HTTP), so they live apart from what raises them.

One type (`pbem.refusals.Refusal`): the domain raises a code with its params, and the entry that
shows it words it in its reader's language (a page the request's, the admin and the command
line English, a reply's answer the seat's). `GameError` is a refusal of the game domain, caught
apart from a link's (`pbem.links.LinkError`); its subclasses are the kinds callers tell apart.
The codes of the domain are declared here, those of the clocks' preferences in
`pbem.games.clocks.refusals`, the limits' in `pbem.games.limits`, the links' in `pbem.links`."""
from __future__ import annotations

import engine

from pbem.games.move_refusals import FALLBACK, move_refusal
from pbem.i18n import lazy
from pbem.refusals import REFUSALS, TRANSLATED_PARAMS, Refusal, declare_refusals

__all__ = ["REFUSALS", "TRANSLATED_PARAMS", "declare_refusals", "GameError", "NotFound", "StaleMove",
           "IllegalMoveError", "GameNotRunning", "SeatHandedToBot", "GameNotOver"]


class GameError(Refusal):
    """A request the game domain refused, by its code (`pbem.refusals.Refusal`)."""


class NotFound(GameError):
    status = 404


class StaleMove(GameError):
    status = 409

    @property
    def already_played(self) -> bool:
        """The same seat's same move was stored for this version (a double click)."""
        return self.code == "already_played"


class IllegalMoveError(GameError):
    """A move the engine refused: `engine.IllegalMove`'s code and params, worded by
    `pbem.games.move_refusals` in the reader's language."""

    status = 422

    def __init__(self, code: str, params: dict[str, object] | None = None, *,
                 refused: engine.IllegalMove | None = None) -> None:
        super().__init__(code, params)
        self.refused = refused

    @classmethod
    def of(cls, exc: engine.IllegalMove) -> IllegalMoveError:
        return cls("illegal_move", refused=exc)

    def sentence(self) -> str:
        return move_refusal(self.refused) if self.refused is not None else super().sentence()


class GameNotRunning(GameError):
    """Paused (409) or over (410)."""

    status = 409


class SeatHandedToBot(GameError):
    """A bot plays the seat now: its player's moves wait until an admin hands it back."""

    status = 409


class GameNotOver(GameError):
    """Refused until the game is finished or aborted (its deck would give away the deal)."""

    status = 409


# The sentences of the game domain by code: (a msgid of the pages catalog, HTTP status). The
# admin's and the command line's read English; a player who meets one reads their language.
declare_refusals({
    # games and seats
    "no_such_game": (lazy("There is no such game."), 404),
    "game_gone": (lazy("This game does not exist any more."), 404),
    "no_seat_numbered": (lazy("This game has no seat %(position)s."), 404),
    "game_has_no_seat": (lazy("Game %(game)s has no seat %(seat)s."), 404),
    "no_game_numbered": (lazy("There is no game %(game)s."), 404),
    "record_of_live_game": (lazy("Game %(game)s is still being played: its record holds the deck (every hand and "
                                 "the draw pile), so it can be exported once the game is over."), 409),
    "link_not_a_seat": (lazy("This link does not belong to any player of this game."), 403),
    "link_revoked": (lazy("This link has been replaced by a newer one (for example after an email address "
                          "change). Use the links in your latest email."), 403),
    # a move
    "game_paused": (lazy("This game is paused: moves wait until an admin resumes it."), 409),
    "game_finished": (lazy("This game is over: no more moves can be played."), 410),
    "game_aborted": (lazy("This game was stopped by an admin: no more moves can be played."), 410),
    "already_played": (lazy("You already played this move; it counted once."), 409),
    "old_link": (lazy("This link is from an older email: the game has moved on since. "
                      "Open your game page to see the moves you have now."), 409),
    "handed_to_bot": (lazy("A bot plays your seat now; ask the game's admin to hand it back to you."), 409),
    "no_such_seat": (lazy("There is no such seat in this game."), 422),
    "illegal_move": (FALLBACK, 422),
    "stored_first": (lazy("Someone else's move was stored first. Open your game page."), 409),
    "stored_already": (lazy("This move was already stored. Open your game page."), 409),
    # the engine's refusal of a setup (engine.ConfigError has no codes: its English sentence)
    "engine_config": (lazy("%(reason)s"), 400),
    # the admin's actions
    "nobody_to_nudge": (lazy("Nobody with an email address is to move in this game."), 409),
    "no_such_email": (lazy("There is no such email."), 404),
    "email_not_retriable": (lazy("This email is %(status)s: only failed or waiting emails can be retried."), 409),
    "resume_not_paused": (lazy("Only a paused game can be resumed."), 409),
    "game_is_over": (lazy("This game is over."), 410),
    "game_already_over": (lazy("This game is already over."), 410),
    "seat_already_bot": (lazy("%(name)s's seat is already played by the bot."), 409),
    "seat_not_bot": (lazy("%(name)s's seat is not played by the bot."), 409),
    "seat_left": (lazy("%(name)s left this game: the bot keeps their seat."), 409),
    "bad_extension": (lazy("Extend by a positive number of hours (at most 60 days)."), 400),
    "nobody_waiting": (lazy("Nobody is waiting under a deadline in this game."), 409),
    "address_suppressed": (lazy("%(address)s asked never to be emailed by us: choose another address."), 409),
    "bot_has_no_address": (lazy("A bot seat has no email address."), 400),
    # a player leaving
    "left_already": (lazy("You have left this game already."), 409),
    "nothing_to_leave": (lazy("This game is over: there is nothing to leave."), 409),
    # games players start themselves
    "write_an_address": (lazy("Write an email address, like ann@example.com."), 422),
    "form_sent_already": (lazy("This form was sent already and its game is set up. To start another game, "
                               "open the form again."), 409),
    "confirmed_already": (lazy("This game is confirmed already: its page shows where it stands."), 409),
    "started_already": (lazy("This game has started already."), 409),
    "proposal_cancelled": (lazy("This game was cancelled."), 409),
    "confirm_first": (lazy("Confirm the game first, from the link in your email."), 409),
    "not_replaceable": (lazy("Only a player who declined or did not answer can be replaced."), 409),
    "cannot_cancel": (lazy("This game can no longer be cancelled."), 409),
    "choose_a_button": (lazy("Choose one of the page's buttons."), 422),
    "rematch_asked": (lazy("Another player has asked for a rematch of this game already: your invitation "
                           "is in your email."), 409),
    "rematch_not_over": (lazy("This game is not over yet: a rematch can start once it has ended."), 409),
    "rematch_needs_address": (lazy("Only a player with an email address can ask for a rematch."), 409),
    "creator_suppressed": (lazy("This address asked us never to email it again."), 409),
    "players_suppressed": (lazy("%(names)s asked never to receive email from us: start a new game instead."), 409),
    "invitation_cancelled": (lazy("This game was cancelled by the player who set it up."), 409),
    "accepted_already": (lazy("You have accepted this invitation already."), 409),
    "declined_already": (lazy("You have declined this invitation already."), 409),
    "not_being_set_up": (lazy("This game is no longer being set up."), 409),
    "proposal_gone": (lazy("This game is no longer being set up."), 404),
    "link_replaced": (lazy("This link has been replaced by a newer one. Use the link in your latest email."), 403),
})
