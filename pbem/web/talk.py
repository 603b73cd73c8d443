"""Blueprint 'talk': the game page's talk box, and the POST that sends its words.

- POST /g/<seat token>/talk: the seat's words to its partner (team games) or to the table
  (individual games with table talk on); then 303 back to the game page. The signed token in
  the URL authenticates the player, as for move links (no session, no CSRF cookie).
- `talk_box(session, seated, game_url)`, for the game page's view: what the partial
  `talk/_talk.html` shows (the talk this seat may read, never another team's).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request
from sqlmodel import Session

from pbem.appctx import config
from pbem.games import talk
from pbem.games.seated import SeatedGame
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.models import utcnow
from pbem.present.grammar import together
from pbem.present.names import seat_name
from pbem.web import seat as seat_entry
from pbem.web.error_page import error_page

bp = Blueprint("talk", __name__)  # nested in pbem.web.seat at /g/<token>
seat_entry.bp.register_blueprint(bp)
# Why the talk box takes no words now, said to a reader who has not written any.
BOX_CLOSED = {
    talk.TALK_ENDED: lazy("Talk ended with the game: the words above stay for you to read."),
    talk.WRITER_LEFT: lazy("You have left this game, so you can no longer talk here."),
    talk.ONLY_BOTS: lazy("Only bots play with you here: nobody would read your words."),
    talk.PARTNER_IS_BOT: lazy("Your partner is a bot: it does not read messages."),
}
# Read at most this much of a form (the stored message is cut at talk.MAX_TALK_CHARS).
MAX_FORM_CHARS = 4 * talk.MAX_TALK_CHARS


@bp.route("/talk", methods=["POST"])
def send_talk() -> Any:
    """Store the words of the talk form, then back to the game page's talk box."""
    text = request.form.get("text", "")[:MAX_FORM_CHARS]
    game_url = seat_entry.page_url()
    with seat_entry.changing() as (session, seated):
        said = talk.say(session, config(), seated.game, seated.seats, seated.seat, text, utcnow())
    if said.refused:
        status = {talk.TOO_MUCH_TALK: 429, talk.BIDI_IN_TALK: 422}.get(said.refused, 403)
        return error_page("talk", said.refused_text, status, game_url=game_url)
    if not said.text:
        return error_page("talk", _("There was nothing to send: write a few words first."), 400,
                          game_url=game_url)
    return redirect(f"{game_url}#talk", code=303)


def talk_box(session: Session, seated: SeatedGame, game_url: str) -> dict[str, Any]:
    """What the talk box of the seat's game page shows (`talk/_talk.html`): its readable talk and
    where to post; read in the game page's own transaction."""
    game, seats, seat = seated.game, seated.seats, seated.seat
    lines = talk.visible(session, game, seats, seat)
    partners = [seat_name(s, seats) for s in seated.partners()]
    closed = talk.refusal(game, seats, seat)
    return {
        "enabled": bool(game.teams or game.table_talk),
        "closed": _(BOX_CLOSED.get(closed, closed)) if closed else None,  # why nothing can be sent now
        "title": _("Talk with %(partners)s", partners=together(partners)) if partners else _("Table talk"),
        # who reads what is sent here, said beside the form
        "readers": _("Only your partner reads your message.") if game.teams
        else _("The whole table reads your message."),
        "lines": lines, "url": f"{game_url}/talk", "max_chars": talk.MAX_TALK_CHARS,
    }
