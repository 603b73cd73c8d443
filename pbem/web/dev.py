"""Blueprint 'dev': the inbox of the local mail catcher (development only; create_app does
not register it in production). Every GET changes nothing.

/dev/mail lists caught messages (newest first, `?to=` filters by recipient),
/dev/mail/<id> shows one: headers, the text part, and the HTML part in a sandboxed iframe
(no scripts, no same-origin; links open in a new tab so move links can be followed).
POST /dev/mail/<id>/reply (the one route that acts) sends a reply to the message's Reply-To,
as its recipient, by real SMTP to the inbound receiver (INBOUND_HOST:INBOUND_PORT): playing
by reply, locally.
"""
from __future__ import annotations

import re
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, jsonify, redirect, render_template, request, send_file, url_for
from markupsafe import Markup, escape

from pbem.mail.catcher import default_mail_dir, list_mail, load_mail, mail_path
from pbem.appctx import config

bp = Blueprint("dev", __name__, url_prefix="/dev")

# The HTML part is shown via srcdoc, which inherits this policy: styles yes, scripts never.
VIEWER_CSP = "; ".join([
    "default-src 'none'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: http: https:",
    "base-uri 'none'",
    "form-action 'self'",  # the Reply form only
    "frame-ancestors 'none'",
])
_URL = re.compile(r"https?://[^\s<>\"']+")


def mail_dir() -> Path:
    return Path(getattr(config(), "MAIL_CATCHER_DIR", None) or default_mail_dir())


def linkify(text: str) -> Markup:
    """Escaped text with its URLs as links (the text part's move links, clickable)."""
    escaped = str(escape(text))
    return Markup(_URL.sub(lambda m: f'<a href="{m.group(0)}" target="_blank" rel="noopener">{m.group(0)}</a>',
                           escaped))


def _with_csp(body: str) -> Response:
    response = Response(body, mimetype="text/html")
    response.headers["Content-Security-Policy"] = VIEWER_CSP
    return response


@bp.get("/mail")
def inbox() -> Response:
    to = request.args.get("to", "").strip()
    return _with_csp(render_template("dev/inbox.html", mails=list_mail(mail_dir(), to or None), to=to))


@bp.get("/mail.json")
def inbox_json() -> Response:
    to = request.args.get("to", "").strip()
    return jsonify([{"id": m.id, "received_at": m.received_at.isoformat(), "to": m.to,
                     "delivered_to": list(m.delivered_to), "subject": m.subject}
                    for m in list_mail(mail_dir(), to or None)])


@bp.get("/mail/<mail_id>")
def message(mail_id: str) -> Response:
    msg = load_mail(mail_dir(), mail_id)
    if msg is None:
        abort(404, description="No such message in the dev inbox.")
    text_part = msg.get_body(preferencelist=("plain",))
    html_part = msg.get_body(preferencelist=("html",))
    html = html_part.get_content() if html_part is not None else None
    if html is not None:
        html = '<base target="_blank">' + html  # links leave the sandbox in a new tab
    return _with_csp(render_template(
        "dev/message.html", mail_id=mail_id, headers=list(msg.items()),
        subject=str(msg.get("Subject", "")), reply_to=str(msg.get("Reply-To") or ""),
        text=linkify(text_part.get_content()) if text_part is not None else None, html=html))


@bp.get("/mail/<mail_id>.eml")
def raw(mail_id: str) -> Response:
    path = mail_path(mail_dir(), mail_id)
    if path is None:
        abort(404, description="No such message in the dev inbox.")
    return send_file(path, mimetype="text/plain", download_name=f"{mail_id}.eml")


@bp.post("/mail/<mail_id>/reply")
def reply(mail_id: str) -> Any:
    """Send the form's words as a reply by the message's recipient, quoting it, to the receiver."""
    msg = load_mail(mail_dir(), mail_id)
    if msg is None or not msg.get("Reply-To"):
        abort(404, description="No such message with a Reply-To in the dev inbox.")
    cfg = config()
    answer = EmailMessage()
    answer["From"], answer["To"] = str(msg["To"]), str(msg["Reply-To"])
    answer["Subject"] = "Re: " + str(msg.get("Subject", ""))
    answer["Message-ID"] = make_msgid(domain="dev.localhost")
    answer["In-Reply-To"] = str(msg.get("Message-ID", ""))
    text_part = msg.get_body(preferencelist=("plain",))
    quoted = "\n".join("> " + line for line in (text_part.get_content() if text_part else "").splitlines())
    answer.set_content(f"{request.form.get('text', '')[:5000]}\n\nOn {msg.get('Date', '')}, "
                       f"{msg.get('From', '')} wrote:\n{quoted}\n")
    try:
        with smtplib.SMTP(cfg.INBOUND_HOST, cfg.INBOUND_PORT, timeout=10) as smtp:
            smtp.send_message(answer)
    except (OSError, smtplib.SMTPException) as exc:
        abort(502, description=f"The inbound receiver on {cfg.INBOUND_HOST}:{cfg.INBOUND_PORT} did not "
                               f"take the reply ({exc}). Is `flask --app pbem inbound` running?")
    return redirect(url_for("dev.inbox", to=str(msg["To"])), code=303)
