"""Only what the writer of a reply typed anew: what their mail client quoted, the heading it
wrote above the quote, forwarded and original-message blocks, and signatures are cut away.

A reply is read line by line, once:
- A quoted line (`>` or `|` marks, any depth) goes; the writer's lines between quoted blocks
  stay (an inline answer).
- An attribution ("On ... wrote:", "Le ... a écrit :", "Vào ... đã viết:", "Am ... schrieb ...:",
  "...님이 작성:", "...写道：", "date, Name <address>:"), on one line or wrapped over two, goes
  when a quoted block follows it; when none does (a client that quotes without marks), it
  and everything after it go.
- A separator ("-------- Original Message --------" in any language, Outlook's rule of
  underscores, "Begin forwarded message:"), a block of mail headers ("From: / Sent:",
  "De : / Envoyé :", "Od: / Data:", any language: two header lines in a row, one of them
  with an address or a date), a signature ("-- ", "Sent from my iPhone"): it and everything
  after it go.
- The fail-safe that needs no pattern: the first line that is a line of the emails we sent
  this seat (`OurEmail`) or that names our host starts the quote. A move label the writer
  copied to play it stays: a label is ours only when what follows it in our email follows it
  (its link, the next label).

mail-parser-reply's patterns of many languages (attribution lines, "sent from" lines) are
consulted line by line, on short lines only: its own whole-text parse is quadratic on a long
line (5,000 characters starting with "On " take a second) and gives back the quote when a
reply begins with a header. Every rule here is linear in the text.
"""
from __future__ import annotations

import logging
import re

from mailparser_reply.constants import MAIL_LANGUAGES

from pbem.inbound.ours import NOTHING_OURS, QUOTE_MARKS, OurEmail, is_label, line_key, names_host, normal

log = logging.getLogger("pbem.inbound")

# A reply is read this far (the message reader keeps 20,000 characters already).
MAX_TEXT_CHARS = 100_000
# A client's attribution line is never longer; a header name neither.
MAX_ATTRIBUTION_CHARS = 300
MAX_HEADER_NAME_CHARS = 30
# The library's attribution patterns are quadratic in the line: only lines this short, and
# only this many per reply, are given to them.
LIBRARY_LINE_CHARS = 200
LIBRARY_CHECKS = 20
MAX_SENT_FROM_CHARS = 100
# A move label re-wrapped by a quoting client comes back in at most this many pieces.
MAX_LABEL_PIECES = 3


# ---------------------------------------------------------------- how clients quote
# Words that end an attribution line ("... wrote:"), case-folded; CJK ones need no word edge.
_ATTRIBUTION_VERBS = re.compile(
    r"(?<!\w)(?:wrote|writes|a [ée]crit|đã viết|schrieb|escribi[óo]|ha scritto|schreef|pisze|"
    r"napisał|napisała|napisal|nadesłał|написал|написала|написа|пишет|пише|skrev|yazdı|escreveu|"
    r"napsal|napsala|napísal|kirjoitti|kirjutas|a scris|írta|έγραψε|כתב|كتب|menulis|napisao|napisala|"
    r"rašė|rakstīja|va escriure)(?!\w)|写道|寫道|書きました|님이 작성|のメール")
# The first word of an attribution that a client wrapped over two lines.
_ATTRIBUTION_STARTS = frozenset({"on", "le", "vào", "am", "el", "il", "op", "w", "dnia", "dne", "den",
                                 "em", "pe", "στις"})
_DATE = re.compile(r"(?<!\d)(?:(?:19|20)\d\d|\d{1,2}:\d\d|\d{1,2}[./-]\d{1,2}[./-]\d{2,4})(?!\d)")

# Header names of quoted and forwarded messages in the languages clients write them, case-folded.
_HEADER_NAMES = frozenset({
    "from", "sent", "date", "to", "subject", "cc", "bcc", "reply-to", "organization", "importance",
    "de", "envoyé", "envoyé le", "à", "objet", "répondre à", "expéditeur", "date d'envoi",
    "von", "gesendet", "datum", "an", "betreff", "antwort an",
    "từ", "đã gửi", "gửi", "ngày", "ngày gửi", "đến", "tới", "tiêu đề", "chủ đề", "bản sao",
    "enviado", "enviada", "enviado el", "fecha", "para", "asunto", "remitente", "enviada em", "assunto",
    "da", "inviato", "a", "oggetto", "data", "mittente",
    "van", "verzonden", "aan", "onderwerp", "afzender",
    "od", "wysłano", "do", "temat", "dw", "nadawca", "odesláno", "komu", "předmět", "kopie",
    "от", "отправлено", "кому", "тема", "дата", "копия",
    "från", "skickat", "till", "ämne", "kopia", "avsändare",
    "fra", "sendt", "til", "emne", "dato",
    "kimden", "gönderildi", "gönderilme", "kime", "konu", "tarih", "bilgi",
    "lähettäjä", "lähetetty", "vastaanottaja", "aihe", "päivämäärä",
    "feladó", "elküldve", "címzett", "tárgy", "από", "αποστολή", "προς", "θέμα",
    "보낸 사람", "보낸사람", "보낸 날짜", "받는 사람", "받는사람", "제목", "참조", "날짜",
    "发件人", "发送时间", "收件人", "主题", "抄送", "日期", "时间", "寄件者", "寄件日期", "收件者", "主旨",
    "差出人", "送信日時", "宛先", "件名", "日時",
})
# What clients write above a forwarded message (case-folded, without the colon).
_FORWARD_INTROS = frozenset({
    "begin forwarded message", "forwarded message", "début du message réexpédié",
    "début du message transféré", "message transféré", "anfang der weitergeleiteten nachricht",
    "inicio del mensaje reenviado", "mensaje reenviado", "inizio messaggio inoltrato",
    "messaggio inoltrato", "begin doorgestuurd bericht", "início da mensagem reencaminhada",
    "início da mensagem encaminhada", "mensagem encaminhada", "начало переадресованного сообщения",
    "пересылаемое сообщение", "bắt đầu thư được chuyển tiếp", "bắt đầu tin nhắn được chuyển tiếp",
    "thư được chuyển tiếp", "początek przekazywanej wiadomości", "vidarebefordrat brev",
    "転送されたメッセージ", "전달된 메시지", "转发的邮件", "轉寄的郵件",
})
_RULE_CHARS = "-_=~—–"
# The first words of the line a phone or webmail adds under the writer's text (case-folded).
_SENT_FROM = (
    "sent from my", "sent from yahoo", "sent from outlook", "sent from mail for", "sent from samsung",
    "sent from proton", "sent via ", "sent with ", "get outlook for", "envoyé de mon", "envoyé depuis",
    "envoyé à partir de", "envoyé avec", "obtenir outlook pour", "télécharger outlook pour",
    "gửi từ", "được gửi từ", "đã gửi từ", "tải outlook cho", "von meinem", "gesendet von",
    "gesendet mit", "enviado desde", "enviado do meu", "enviado de meu", "inviato da", "inviato dal",
    "verzonden vanaf", "verstuurd vanaf", "wysłano z", "отправлено с", "отправлено из", "skickat från",
    "sendt fra", "lähetetty", "从我的", "發自我的",
)
_SENT_FROM_ENDS = ("から送信", "에서 보냄", "gönderildi", "gesendet", "发送")


def _library_patterns(key: str, template: str) -> re.Pattern[str] | None:
    """The library's patterns of `key` for all its languages as one pattern, each one that
    compiles (a library update must not stop the receiver)."""
    parts: list[str] = []
    for spec in MAIL_LANGUAGES.values():
        value = spec.get(key) if isinstance(spec, dict) else None
        for pattern in value if isinstance(value, list) else [value]:
            if not isinstance(pattern, str) or not pattern:
                continue
            try:
                re.compile(template.format(pattern))
            except re.error:
                continue
            parts.append(template.format(pattern))
    return re.compile("|".join(parts), re.I) if parts else None


_LIBRARY_ATTRIBUTION = _library_patterns("wrote_header", "(?:{})")
_LIBRARY_SENT_FROM = _library_patterns("sent_from", r"^(?:{})")


class _Budget:
    """How many more lines the library's quadratic patterns may look at in this reply."""

    def __init__(self, checks: int) -> None:
        self.checks = checks

    def take(self) -> bool:
        self.checks -= 1
        return self.checks >= 0


def _is_attribution(line: str, budget: _Budget) -> bool:
    """`line` (normalised, stripped) is a client's heading of a quote: it ends in a colon and
    holds a verb of writing, or an address and a date (Gmail in Russian or Japanese)."""
    if not line or len(line) > MAX_ATTRIBUTION_CHARS or line[-1] != ":":
        return False
    low = line.casefold()
    if _ATTRIBUTION_VERBS.search(low):
        return True
    if _has_address(low) and _DATE.search(low):  # "date, Name <address>:", mutt's "* Name <address> [date]:"
        return True
    if _LIBRARY_ATTRIBUTION is None or len(line) > LIBRARY_LINE_CHARS or not budget.take():
        return False
    try:
        return _LIBRARY_ATTRIBUTION.match(line) is not None
    except Exception:  # noqa: BLE001  the library's bad day: our own rules stand
        return False


def _starts_like_attribution(line: str) -> bool:
    first = line.casefold().split(" ", 1)[0].rstrip(",")
    return first in _ATTRIBUTION_STARTS


def _attribution_head(line: str) -> bool:
    """`line` may be the first half of an attribution a client wrapped over two lines."""
    if len(line) > LIBRARY_LINE_CHARS:
        return False
    if line.endswith("<") or "@" in line:
        return True
    return _starts_like_attribution(line) and any(c.isdigit() for c in line)


def _has_address(value: str) -> bool:
    return "@" in value and any("@" in word and "." in word.rpartition("@")[2] for word in value.split())


def _header(line: str) -> tuple[str, str] | None:
    """("name", "value") of a "Name: value" line as mail headers are written, or None."""
    if not line or line[0] in QUOTE_MARKS:
        return None
    colon = line.find(":", 0, MAX_HEADER_NAME_CHARS + 4)
    if colon <= 0:
        return None
    name = " ".join(line[:colon].strip(" *_\t").casefold().split())
    if not name or len(name) > MAX_HEADER_NAME_CHARS or name.count(" ") > 3:
        return None
    if not all(c.isalpha() or c in " '.-" for c in name):
        return None
    value = line[colon + 1:].strip(" *_\t")
    if value.startswith("//"):  # "http://...": a link, not a header
        return None
    return name, value


def _is_separator(line: str) -> bool:
    """"-------- Original Message --------" in any language, "-----Original Message-----",
    Outlook's rule of underscores, "Begin forwarded message:"."""
    if len(line) > 120:
        return False
    if len(line) >= 5 and not line.strip("_"):
        return True
    lead = len(line) - len(line.lstrip(_RULE_CHARS))
    trail = len(line) - len(line.rstrip(_RULE_CHARS))
    core = line.strip(_RULE_CHARS + " ")
    if lead >= 3 and trail >= 3 and 0 < len(core) <= 80 and any(c.isalpha() for c in core):
        return True
    return line.casefold().rstrip(" :") in _FORWARD_INTROS


def _is_signature(line: str) -> bool:
    """"-- " (often sent as "--"), or the line a phone or webmail signs with."""
    if line in ("--", "__"):
        return True
    if len(line) > MAX_SENT_FROM_CHARS:
        return False
    low = line.casefold()
    if low.startswith(_SENT_FROM) or (len(line) <= 60 and low.endswith(_SENT_FROM_ENDS)):
        return True
    try:
        return _LIBRARY_SENT_FROM is not None and _LIBRARY_SENT_FROM.match(line) is not None
    except Exception:  # noqa: BLE001  the library's bad day: our own rules stand
        return False


# ---------------------------------------------------------------- the reader
class _Reply:
    """One reply's lines and what each is, read once (every look-ahead is precomputed)."""

    def __init__(self, text: str, ours: OurEmail) -> None:
        self.raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.norm = [normal(line).strip() for line in self.raw]
        self.ours = ours
        self.budget = _Budget(LIBRARY_CHECKS)
        n = len(self.raw)
        self.marked = [line.startswith((">", "|")) for line in self.norm]
        self.headers = [_header(line) for line in self.norm]
        self.next_line = [n] * (n + 1)  # the first non-blank line at or after i
        self.dated = [False] * (n + 1)  # a header from line i on, in its run, holds an address or date
        for i in range(n - 1, -1, -1):
            self.next_line[i] = i if self.norm[i] else self.next_line[i + 1]
            header = self.headers[i]
            self.dated[i] = header is not None and (
                _has_address(header[1]) or _DATE.search(header[1]) is not None or self.dated[i + 1])

    def new_text(self) -> str:
        kept: list[str] = []
        i, n = 0, len(self.raw)
        while i < n:
            line = self.norm[i]
            if not line or self.marked[i]:  # a quoted line leaves a paragraph break
                kept.append("")
                i += 1
                continue
            span = self._attribution(i)
            if span:
                after = self.next_line[i + span]
                if after < n and self.marked[after]:  # the heading of a marked quote: an inline
                    kept.append("")  # answer may follow it
                    i += span
                    continue
                break
            if _is_signature(line) or _is_separator(line) or self._header_block(i) or self._ours(i):
                break
            kept.append(self.raw[i].rstrip())
            i += 1
        return _tidy(kept)

    def _attribution(self, i: int) -> int:
        """How many lines (1 or 2) the attribution starting at line i spans; 0: none."""
        line = self.norm[i]
        if _is_attribution(line, self.budget):
            return 1
        if i + 1 >= len(self.raw) or not self.norm[i + 1] or self.marked[i + 1]:
            return 0
        second = self.norm[i + 1]
        # "<address> wrote:" is only ever the end of a wrapped one: the line above holds the name.
        if not (_attribution_head(line) or second.startswith("<")):
            return 0
        if not _is_attribution(f"{line} {second}", self.budget):
            return 0
        # A second line that is a whole attribution of its own is one; the line above is the writer's.
        whole = _starts_like_attribution(second) or (_has_address(second) and _DATE.search(second) is not None)
        return 2 if line.endswith((",", "<", "@")) or not whole else 0

    def _header_block(self, i: int) -> bool:
        """Line i starts a block of mail headers: two header lines in a row that are known
        header names, or any two with an address or a date in the run."""
        here = self.headers[i]
        there = self.headers[i + 1] if i + 1 < len(self.raw) else None
        if here is None or there is None:
            return False
        return (here[0] in _HEADER_NAMES and there[0] in _HEADER_NAMES) or self.dated[i]

    def _ours(self, i: int) -> bool:
        """Line i is a line of our email (or names our host) and starts the quote; a copied
        move label (re-wrapped or not) is the writer's unless what follows it in our email
        follows it."""
        key = line_key(self.norm[i])
        ours = self.ours
        end = i + 1  # the line after the one of ours
        if key not in ours.lines and not names_host(key, ours.hosts):
            rejoined = self._rewrapped_label(i)
            if rejoined is None:
                return False
            key, end = rejoined
        if not is_label(key, ours.labels):
            return True
        after = self.next_line[end]
        if after >= len(self.raw) or self.marked[after]:
            return False
        following = line_key(self.norm[after])
        rejoined = None if is_label(following, ours.labels) else self._rewrapped_label(after)
        if rejoined is not None:
            following = rejoined[0]
        return (names_host(following, ours.hosts) or is_label(following, ours.labels)
                or (key, following) in ours.follows)

    def _rewrapped_label(self, i: int) -> tuple[str, int] | None:
        """A move label that the quoting client re-wrapped, starting at line i: its pieces on
        the next lines (no blank between) joined back into a label, and the line after them."""
        key = line_key(self.norm[i])
        for end in range(i + 1, min(i + MAX_LABEL_PIECES, len(self.raw))):
            if not self.norm[end] or self.marked[end]:
                return None
            key = f"{key} {line_key(self.norm[end])}"
            if is_label(key, self.ours.labels):
                return key, end + 1
        return None


def _tidy(lines: list[str]) -> str:
    """The kept lines, runs of blank lines as one, none first or last."""
    out: list[str] = []
    for line in lines:
        if line.strip():
            out.append(line)
        elif out and out[-1]:
            out.append("")
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def strip_quotes(text: str, ours: OurEmail | None = None) -> str:
    """Only the writer's own new text of a reply (see the module docstring); `ours` is what
    we sent the seat. Never raises: on a fault nothing of the reply is read."""
    try:
        return _Reply(text[:MAX_TEXT_CHARS], ours or NOTHING_OURS).new_text()
    except Exception as exc:  # noqa: BLE001  reading nothing is safe; reading a quote is not
        log.error("reply text not read: quote stripping failed (%s)", type(exc).__name__)
        return ""
