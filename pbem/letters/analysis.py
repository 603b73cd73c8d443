"""The expert's analysis in the mail: the game-over email's line about it (when it will be
ready, and its link: `partials/analysis.*`), and the one email "your analysis is ready", sent
only to an address that chose it on /me (pbem/games/analysis.py queues it)."""
from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from pbem import links
from pbem.config import Config
from pbem.letters.send import queue
from pbem.letters.unsubscribe import unsubscribe_url
from pbem.mail.outbox import OutboxRow
from pbem.models import Game, Seat, utcnow
from pbem.models_analysis import AnalysisJob, AnalysisStatus

KIND = "analysis_ready"


def analysis_url(cfg: Config, seat: Seat) -> str:
    """The seat's analysis page, behind the seat's signed link (like its game page)."""
    return f"{_seat_page(cfg, seat)}/analysis"


def _seat_page(cfg: Config, seat: Seat) -> str:
    """The seat's game page (as `notify.seat_page_url`, which imports this module)."""
    return links.seat_url(cfg, links.sign_seat(cfg, seat.game_id, seat.position, seat.link_nonce))


def analysis_notice(session: Session, cfg: Config, game: Game, seat: Seat,
                    now: datetime | None = None) -> dict[str, Any] | None:
    """What the game-over email says of the analysis: its link, and ready (True) or the minutes
    until it should be (at least 1); None when there is none (an abort, no human, it failed)."""
    job = session.exec(select(AnalysisJob).where(AnalysisJob.game_id == game.id)).first()
    if job is None or job.status == AnalysisStatus.FAILED:
        return None
    now = now or utcnow()
    ready = job.status == AnalysisStatus.DONE
    minutes = max(1, math.ceil((job.ready_by - now).total_seconds() / 60))
    return {"url": analysis_url(cfg, seat), "ready": ready, "minutes": minutes}


def queue_ready(session: Session, cfg: Config, game: Game, seat: Seat) -> OutboxRow | None:
    """"The email "your analysis is ready", to a seat whose address chose it (the caller checks);
    in the seat's language, with the unsubscribe footer like every email (`send.queue`)."""
    return queue(session, cfg, KIND, seat, {
        "game": {"id": game.id, "name": game.name}, "seat": seat, "base_url": cfg.BASE_URL,
        "game_url": _seat_page(cfg, seat), "analysis_url": analysis_url(cfg, seat),
        "my_games_url": f"{cfg.BASE_URL}/me", "unsubscribe_url": unsubscribe_url(cfg, seat),
        "rules_url": links.rules_url(cfg)}, game=game)
