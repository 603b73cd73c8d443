"""A person's rights over what we hold about their address (issue 27): take it with them
(`export_address`: everything that names the mailbox, and of its games only what its seat could
see) and have it erased (`erase_address`: from every table; its seats in the records keep a
neutral name, its running seats go to a bot).

Erasure and the never-list: the person is asked (a checkbox "and never email me again"). Ticked,
or the address already on the list, one row of the mailbox's keyed hash stays on it
(`suppression.forget`), so every path that refuses a listed address still refuses it, in any
spelling; unticked and not listed, nothing of it stays, and it is a new address to us (the rules
of mail nobody asked for apply to it again). Rows erased while the worker sends them are simply
gone when it marks them (an email already handed to the relay still arrives).

An address is found by its mailbox (`pbem.addresses.canonical_key`), as the never-list and the
limits count it: `Ann+korsar@Example.com` and `ann@example.com` are one person. The entries
(/me, the admin's dashboard, the CLI) hand an address; nothing here logs it, and the audit row
of an erasure names it by a prefix of its keyed hash only (`address_tag`)."""
from __future__ import annotations

from pbem.games.privacy.erase import Erased, Found, address_tag, erase_address, former_name, what_is_held
from pbem.games.privacy.export import export_address
from pbem.games.privacy.held import Held, held
from pbem.games.privacy.scrub import ERASED, scrub

__all__ = ["ERASED", "Erased", "Found", "Held", "address_tag", "erase_address", "export_address", "former_name",
           "held", "scrub", "what_is_held"]
