"""Admin pages of games: the list, the create form, the detail page and the JSON export."""
from __future__ import annotations

import json
from typing import Any

import engine
from flask import Response, abort, flash, redirect, render_template, request, url_for
from sqlmodel import col, select

from pbem.auth import current_admin_email, record_audit
from pbem.db import read_scope, session_scope
from pbem.present.board import admin_board, move_log
from pbem.games.service import create_game, seats_of
from pbem.games.errors import GameError
from pbem.games.finish import is_over
from pbem.games.records import export_record, moves_of
from pbem.store import load_state
from pbem.games import analysis, bounced, proposals
from pbem.models import Game, GameStatus, OutboxMessage, SeatKind, utcnow
from pbem.web.admin import bp, queries
from pbem.web.admin.forms import ButtonForm, ChangeEmailForm, CreateGameForm, ExtendDeadlineForm, HandToBotForm
from pbem.appctx import config, db


@bp.route("/")
def games_list() -> Any:
    status = request.args.get("status") or None
    if status not in GameStatus.ALL:
        status = None
    sort = request.args.get("sort", queries.DEFAULT_SORT[0])
    if sort not in queries.SORT_COLUMNS:
        sort = queries.DEFAULT_SORT[0]
    direction = "asc" if request.args.get("dir") == "asc" else "desc"
    page = queries.clamp_page(request.args.get("page"))
    with read_scope(db()) as session:
        rows, pager = queries.list_games(session, status=status, sort=sort, direction=direction, page=page)
        counts = queries.status_counts(session)
    return render_template("admin/games.html", rows=rows, pager=pager, counts=counts, status=status,
                           sort=sort, direction=direction, now=utcnow(), statuses=GameStatus.ALL)


@bp.route("/games/new", methods=["GET", "POST"])
def game_new() -> Any:
    form = CreateGameForm()
    error = None
    if form.validate_on_submit():
        specs = [e.spec() for e in form.entries()]  # checked by the form with the service's check_setup
        settings, unread = form.settings()
        admin = current_admin_email() or "?"
        try:
            with session_scope(db()) as session:
                if form.invite_first.data and any(s.kind == SeatKind.HUMAN for s in specs):
                    view = proposals.invite_players(session, config(), specs, settings, organiser_email=admin,
                                                     unread=unread)
                    record_audit(session, admin, "invite_players", game_id=view.proposal.game_id,
                                 detail=f"{view.proposal.name or 'a game'} ({len(specs)} players, "
                                        f"{len(view.waiting)} invited)")
                    game_id = None
                else:
                    game = create_game(session, config(), specs, settings)
                    record_audit(session, admin, "create_game", game_id=game.id,
                                 detail=f"{game.name} ({len(specs)} players)")  # never the deal
                    game_id = game.id
        except GameError as exc:
            error = exc.message
        else:
            if game_id is not None:
                flash(f"Game {game_id} created: the first emails are queued.", "ok")
                return redirect(url_for("admin.game_detail", game_id=game_id), code=303)
            flash(f"Invitations queued for {len(view.waiting)} players: the game starts when all have "
                  f"accepted. Declines and expiries are emailed to {admin}; the game's page, to replace "
                  f"or cancel: {view.manage_url}", "ok")
            return redirect(url_for("admin.games_list"), code=303)
    status = 200 if request.method == "GET" else 422
    return render_template("admin/game_new.html", form=form, error=error), status


def load_detail(game_id: int) -> dict[str, Any]:
    """Everything the detail page shows (a fixed number of queries)."""
    with read_scope(db()) as session:
        game = session.get(Game, game_id)
        if game is None:
            abort(404, description=f"There is no game {game_id}.")
        seats = seats_of(session, game_id)
        moves = moves_of(session, game_id)
        emails = list(session.exec(select(OutboxMessage).where(OutboxMessage.game_id == game_id)
                                   .options(*queries.WITHOUT_BODIES)
                                   .order_by(col(OutboxMessage.created_at).desc(), col(OutboxMessage.id).desc())))
        audit, _ = queries.audit_entries(session, 1, game_id=game_id, size=100)
        bouncing = {seat.position for seat in bounced.bouncing_seats(session, seats)}
        analysed = analysis.admin_summary(session, game_id)
    view = engine.admin_view(load_state(game))
    return {"game": game, "seats": seats, "picture": admin_board(view), "log": move_log(moves, view),
            "emails": emails, "audit": audit, "options": json.loads(game.options_json), "now": utcnow(),
            "over": is_over(game), "bouncing": bouncing, "analysis": analysed}


def render_detail(game_id: int, *, error: str | None = None, status: int = 200, **forms: Any) -> Any:
    context = load_detail(game_id)
    context.update(
        error=error,
        button=ButtonForm(),
        extend_form=forms.get("extend_form") or ExtendDeadlineForm(formdata=None),
        email_forms=forms.get("email_forms", {}),
        email_form_default=ChangeEmailForm(formdata=None),
        bot_form=HandToBotForm(formdata=None),
    )
    return render_template("admin/game_detail.html", **context), status


@bp.route("/games/<id:game_id>")
def game_detail(game_id: int) -> Any:
    return render_detail(game_id)


@bp.route("/games/<id:game_id>/export.json")
def game_export(game_id: int) -> Any:
    with read_scope(db()) as session:
        try:
            record = export_record(session, game_id)
        except GameError as exc:
            abort(exc.status, description=exc.message)
    body = json.dumps(record, indent=2, sort_keys=True)
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="korsar-game-{game_id}.json"'})
