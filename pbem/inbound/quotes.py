"""What the player wrote in a reply: quoted text, attribution lines ("On ... wrote:", "Le ...
a écrit :", "Vào ... đã viết:"), Outlook's header blocks and signatures stripped.

`mail-parser-reply` knows the attribution and header lines of many languages; the rules here
are language-neutral (quote marks, the "-- " signature separator, a line that ends in a colon
right before quoted lines) plus the languages it lacks (Vietnamese).
"""
from __future__ import annotations

import re

from mailparser_reply import EmailReplyParser

# The library's languages we read replies in (it adds English itself).
PARSER_LANGUAGES = ["en", "fr", "de", "es", "it", "nl"]
_PARSER = EmailReplyParser(languages=PARSER_LANGUAGES)

# Lines from which on nothing is the player's (case-insensitive, after stripping spaces).
_CUT = [
    re.compile(p, re.I) for p in (
        r"^--\s*$",  # the signature separator ("-- ", often sent as "--")
        r"^_{5,}\s*$",  # Outlook's rule above the quoted message
        r"^-{3,}\s*(original message|message d'origine|tin nhắn gốc|urspr[üu]ngliche nachricht)",
        r"^(on|le|vào|am|el)\b.{0,200}(wrote|a écrit|đã viết|schrieb|escribió)\s*:?\s*$",
        r"^.{0,200}\b(wrote|a écrit|đã viết|schrieb|escribió)\s*:\s*$",  # its second line
        r"^(from|de|từ|von)\s*:.*",  # Outlook's header block (From: / De : / Từ:)
        r"^(sent from my|envoyé de mon|gửi từ)\b",
    )
]
_ATTRIBUTION_START = re.compile(r"^(on|le|vào|am|el)\s.*\d", re.I)


def strip_quotes(text: str) -> str:
    """The new text of a reply, without what it quotes or signs."""
    lines: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        if any(rule.match(stripped) for rule in _CUT):
            if _ATTRIBUTION_START.match(lines[-1].strip() if lines else ""):
                lines.pop()  # the first line of an attribution wrapped over two
            break
        if stripped.startswith(">"):
            continue
        lines.append(line.rstrip())
    while lines and not lines[-1].strip():
        lines.pop()
    kept = "\n".join(lines)
    try:
        parsed = _PARSER.parse_reply(kept)
    except (re.error, IndexError, ValueError):  # the library's bad day must not lose the move
        parsed = None
    return (parsed if parsed is not None else kept).strip()
