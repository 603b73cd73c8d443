"""Blueprint 'talk': the game page's talk box, and the POST that sends its words.

- POST /g/<seat token>/talk: the seat's words to its partner (team games) or to the table
  (individual games with table talk on); then 303 back to the game page. The signed token in
  the URL authenticates the player, as for move links (no session, no CSRF cookie).
- `talk_box(session, game, seat, game_url)`, for the game page's view: what the partial
  `talk/_talk.html` shows (the talk this seat may read, never another team's).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, redirect, render_template, request
from sqlmodel import Session

from pbem import links
from pbem.appctx import config, db
from pbem.db import session_scope
from pbem.games import service, talk
from pbem.games.seat_links import link_message, lock_seat, use_seat_language
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.logging import log_context
from pbem.models import Game, Seat, utcnow

bp = Blueprint("talk", __name__)
# Why the talk box takes no words now, said to a reader who has not written any.
BOX_CLOSED = {
    talk.TALK_ENDED: lazy("Talk ended with the game: the words above stay for you to read."),
    talk.WRITER_LEFT: lazy("You have left this game, so you can no longer talk here."),
    talk.ONLY_BOTS: lazy("Only bots play with you here: nobody would read your words."),
}
# Read at most this much of a form (the stored message is cut at talk.MAX_TALK_CHARS).
MAX_FORM_CHARS = 4 * talk.MAX_TALK_CHARS


def register(app: Flask, csrf: Any) -> None:
    """Register the blueprint; its form is authenticated by the signed token, not a session."""
    csrf.exempt(bp)
    app.register_blueprint(bp)


def _refused(message: str, status: int, game_url: str | None = None) -> tuple[str, int]:
    return render_template("player/error.html", title=_("Not sent"), message=message,
                           game_url=game_url, status=status), status


@bp.route("/g/<token>/talk", methods=["POST"])
def send_talk(token: str) -> Any:
    """Store the words of the talk form, then back to the game page's talk box."""
    cfg = config()
    try:
        parsed = links.read_seat(cfg, token)
    except links.LinkError as exc:
        return _refused(link_message(exc), exc.status)
    log_context(game_id=parsed.game_id)
    text = request.form.get("text", "")[:MAX_FORM_CHARS]
    game_url = f"/g/{token}"
    try:
        with session_scope(db()) as session:
            game, seats, seat = lock_seat(session, parsed)
            use_seat_language(seat)
            said = talk.say(session, cfg, game, seats, seat, text, utcnow())
    except links.LinkError as exc:
        return _refused(link_message(exc), exc.status)
    if said.refused:
        status = {talk.TOO_MUCH_TALK: 429, talk.BIDI_IN_TALK: 422}.get(said.refused, 403)
        return _refused(said.refused_text, status, game_url)
    if not said.text:
        return _refused(_("There was nothing to send: write a few words first."), 400, game_url)
    return redirect(f"{game_url}#talk", code=303)


def talk_box(session: Session, game: Game, seat: Seat, game_url: str) -> dict[str, Any]:
    """What the talk box of `seat`'s game page shows (`talk/_talk.html`): its readable talk and
    where to post; read in the game page's own transaction."""
    seats = service.seats_of(session, game.id)  # type: ignore[arg-type]  # stored: its id is set
    lines = talk.visible(session, game, seats, seat)
    partners = [s.name for s in seats if game.teams and s.team == seat.team and s.position != seat.position]
    closed = talk.refusal(game, seats, seat)
    return {
        "enabled": bool(game.teams or game.table_talk),
        "closed": _(BOX_CLOSED.get(closed, closed)) if closed else None,  # why nothing can be sent now
        "title": _("Talk with %(partners)s", partners=_(" and ").join(partners)) if partners else _("Table talk"),
        "lines": lines, "url": f"{game_url}/talk", "max_chars": talk.MAX_TALK_CHARS,
    }
