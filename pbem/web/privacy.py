"""Blueprint 'privacy': GET /privacy, what we keep about a player, for how long, and how to take
a copy or have it erased, written for players from docs/privacy.md in the reader's language.

Public and the same for everyone: no token, nothing to leak. The footer of every page and every
email links here. The periods are read from the settings, so the page says what this copy does."""
from __future__ import annotations

from email.utils import parseaddr

from flask import Blueprint, render_template

from pbem.appctx import config

bp = Blueprint("privacy", __name__)


@bp.route("/privacy", methods=["GET"])
def privacy_page() -> str:
    """What we keep, why, for how long, who sees it, and the reader's rights."""
    cfg = config()
    days = {name.removeprefix("RETENTION_").removesuffix("_DAYS").lower(): round(getattr(cfg, name))
            for name in ("RETENTION_INBOUND_DAYS", "RETENTION_OUTBOX_BODY_DAYS", "RETENTION_PROPOSAL_DAYS")}
    return render_template("player/privacy.html", days=days, operator=parseaddr(cfg.MAIL_FROM)[1])
