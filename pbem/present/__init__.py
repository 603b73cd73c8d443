"""How a game is shown to its readers, for every medium: the board (`board`), the phrasebook
(`phrases`: cards, moves, events, outcomes), the final breakdown (`final`) and the colours of
cards (`colours`). Emails, player pages, the admin, replies and the domain's notices all use it;
it reads only the engine's views and the reader's language (pbem/i18n.py)."""
