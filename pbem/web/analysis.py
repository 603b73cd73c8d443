"""Blueprint 'analysis': the expert's analysis of a finished game, for one seat.

GET /g/<seat token>/analysis  every analysed human move: its mark, the move played and the
                              expert's move in words, the reader's expected margin over the game
                              (an SVG chart with a table); while it is computed, when it will be
                              ready; 409 while the game runs (or if it was aborted)

Nested in the seat's entry (pbem/web/seat.py): the signed seat token the game-over email links
with is the credential, and the page speaks the seat's language. GET only: it changes nothing.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from pbem.games.analysis import analysis_page
from pbem.present.analysis import thresholds_text
from pbem.web import seat as seat_entry

bp = Blueprint("analysis", __name__)  # nested in pbem.web.seat at /g/<token>
seat_entry.bp.register_blueprint(bp)


@bp.route("/analysis", methods=["GET"])
def page() -> Any:
    """The analysis of the seat's finished game (or when it will be ready)."""
    with seat_entry.reading() as (session, seated):
        shown = analysis_page(session, seated)
        return render_template("seat/analysis.html", game=seated.game, page=shown,
                               analysis_chart=shown.chart, thresholds=thresholds_text(),
                               game_url=seat_entry.page_url())
