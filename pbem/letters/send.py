"""The one way an email is queued (`queue`) or written for delivery (`build`), as Zulip's
`build_email`/`send_email`: every email to one reader goes through here.

Who it is to decides its language and its headers, so no caller chooses them:
- a `Seat` (a player): the seat's language, its unsubscribe link (`unsubscribe_url`, in the
  footer) and the one-click `List-Unsubscribe` headers; a seat that wants no mail gets none;
- an `Address` (a game being set up, "my games"): the language it asked in, its "never email
  me again" link (`never_url`) and headers;
- an `Admin`: English, no link, no such headers.
Every one is from the service by its name in the reader's language ("Korsar par e-mail").

A function that writes words for one reader into the context (a notice's lines, a clock
sentence) is `@i18n.speaking_to(<reader>)`: the words and the templates are in one language.
An email written at delivery (`write_at_delivery`: the text the admin outbox page shows until
then) gets only its subject now; its writer (`pbem/letters/deferred.py`) calls `build` then.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

import pbem.i18n as i18n
from pbem import links
from pbem.config import Config
from pbem.letters.unsubscribe import unsubscribe_url
from pbem.i18n import gettext as _
from pbem.mail.mime import FROM_NAME
from pbem.mail import undeliverable
from pbem.mail.outbox import Email, OutboxRow, enqueue
from pbem.mail.render import render_email, render_subject
from pbem.models import Game, Seat, SeatKind


@dataclass(frozen=True)
class Address:
    """An address that is no seat: it reads us in `language` and may say "never"."""

    email: str
    language: str


@dataclass(frozen=True)
class Admin:
    """An admin: reads English, has nothing to unsubscribe from."""

    email: str
    language: str | None = None


Recipient = Seat | Address | Admin


def wants_mail(seat: Seat) -> bool:
    """A person with an address who has not left the game (pbem/games/lifecycle.py leave_game)."""
    return seat.kind == SeatKind.HUMAN and bool(seat.email) and not seat.left_game


def _one_click(url: str) -> dict[str, str]:
    """List-Unsubscribe with its one-click POST (RFC 8058; the URL is https in production)."""
    return {"List-Unsubscribe": f"<{url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


def _stop_link(cfg: Config, to: Recipient) -> tuple[dict[str, str], dict[str, str]]:
    """The reader's way to stop our mail: (its link for the footer, its headers)."""
    if isinstance(to, Seat):
        url = unsubscribe_url(cfg, to)
        return {"unsubscribe_url": url}, _one_click(url)
    if isinstance(to, Address):
        url = links.never_url(cfg, to.email)
        return {"never_url": url}, _one_click(url)
    return {}, {}


def _from_name() -> dict[str, str]:
    """The From header's display name: the service's name in the reader's language (the
    language in force), for pbem/mail/mime.py. A header keeps plain hyphens: the catalog's
    non-breaking one (U+2011) is for text wrapped on a screen, and a mailbox search types "-"."""
    return {FROM_NAME: _("Korsar by mail").replace("\u2011", "-")}


def _address_of(to: Recipient) -> str:
    return (to.email or "") if isinstance(to, Seat) else to.email


def _language_header(code: str) -> dict[str, str]:
    """Content-Language (RFC 3282) of an email written in `code`, the language the templates
    and the `lang` of its HTML were written in ("fr", "en-XX" for the test pseudo-locale)."""
    return {"Content-Language": code.replace("_", "-")}


def build(cfg: Config, kind: str, to: Recipient, context: dict[str, Any], *,
          headers: dict[str, str] | None = None) -> Email:
    """Email `kind` written for `to` in its language, with its stop link and headers
    (`headers`: the kind's own, like a Reply-To)."""
    link, stop_headers = _stop_link(cfg, to)
    with i18n.using(to.language) as code:
        return render_email(kind, _address_of(to), {**link, **context},
                            {**_from_name(), **stop_headers, **_language_header(code), **(headers or {})})


def queue(session: Session, cfg: Config, kind: str, to: Recipient, context: dict[str, Any], *,
          game: Game | None = None, first: bool = False, headers: dict[str, str] | None = None,
          write_at_delivery: str | None = None, params: dict[str, Any] | None = None,
          now: datetime | None = None) -> OutboxRow | None:
    """Queue email `kind` to `to` in the caller's transaction (None: a seat that wants no mail).

    `game`: the email belongs to its thread (`first`: it opens it). `write_at_delivery`: the
    worker writes it just before sending with the writer registered under `kind`, from
    `params`; `context` is then only its subject's, and the row holds this text and the
    reader's headers until then. Nothing is queued for an address our mail bounces from
    (`mail/undeliverable.py`), but the emails a person asks for on a page.
    """
    if isinstance(to, Seat) and not wants_mail(to):
        return None
    if kind not in undeliverable.ASKED_FOR_KINDS and undeliverable.is_undeliverable(session, _address_of(to)):
        return None
    if write_at_delivery is None:
        email = build(cfg, kind, to, context, headers=headers)
    else:  # its writer brings the body (and the same headers again)
        with i18n.using(to.language) as code:
            subject = render_subject(kind, context)
            from_name = _from_name()
        email = Email(kind=kind, to_addr=_address_of(to), subject=subject, text_body=write_at_delivery,
                      html_body="", headers={**from_name, **_stop_link(cfg, to)[1], **_language_header(code),
                                             **(headers or {})})
    thread = game.thread_id or None if game is not None else None
    return enqueue(session, cfg, email, game_id=game.id if game is not None else None,
                   seat_id=to.id if isinstance(to, Seat) else None,
                   thread_id=None if first else thread, message_id=thread if first else None,
                   now=now, deferred=kind if write_at_delivery is not None else None, params=params)
