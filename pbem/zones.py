"""Time zones as people name them: a short list of cities in the reader's language (the picker
on /me and on a game's preferences, `templates/shared/zones.html`), the full IANA list behind
"other…", and a zone named in a sentence ("Paris time", "heure de Paris", "giờ Hà Nội")."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from zoneinfo import available_timezones

from pbem.i18n import gettext as _
from pbem.i18n import lazy


@dataclass(frozen=True)
class City:
    zone: str  # IANA name
    name: str  # a msgid: the city as the reader's language writes it


# Where our players live first (French- and Vietnamese-speaking places), then the world's big
# cities by their zone. No French name starts with a vowel: "heure de %(city)s" needs no elision.
CITIES: tuple[City, ...] = (
    City("Europe/Paris", lazy("Paris")),
    City("Europe/Brussels", lazy("Brussels")),
    City("Europe/Zurich", lazy("Geneva / Zurich")),
    City("Europe/Luxembourg", lazy("Luxembourg")),
    City("America/Toronto", lazy("Montreal")),
    City("Asia/Ho_Chi_Minh", lazy("Hanoi / Ho Chi Minh City")),
    City("Africa/Dakar", lazy("Dakar")),
    City("Africa/Casablanca", lazy("Casablanca")),
    City("Africa/Tunis", lazy("Tunis")),
    City("Indian/Reunion", lazy("Réunion")),
    City("Europe/London", lazy("London")),
    City("Europe/Berlin", lazy("Berlin")),
    City("Europe/Madrid", lazy("Madrid")),
    City("Europe/Moscow", lazy("Moscow")),
    City("America/New_York", lazy("New York")),
    City("America/Chicago", lazy("Chicago")),
    City("America/Los_Angeles", lazy("Los Angeles")),
    City("Asia/Bangkok", lazy("Bangkok")),
    City("Asia/Singapore", lazy("Singapore")),
    City("Asia/Tokyo", lazy("Tokyo")),
    City("Australia/Sydney", lazy("Sydney")),
)
_CITY_OF = {city.zone: city for city in CITIES}
# Older names of the same zones, as a seat may have stored them.
_SAME_ZONE = {"Asia/Saigon": "Asia/Ho_Chi_Minh", "America/Montreal": "America/Toronto",
              "Europe/Geneva": "Europe/Zurich"}


@lru_cache(maxsize=1)
def every_zone() -> tuple[str, ...]:
    """The full IANA list behind "other…" (without the aliases no one lives in)."""
    hidden = {"Factory", "localtime", "posixrules"}
    return tuple(sorted(z for z in available_timezones() if z not in hidden and "/" in z or z == "UTC"))


def city(zone: str | None) -> City | None:
    return _CITY_OF.get(_SAME_ZONE.get(zone or "", zone or ""))


def city_name(zone: str) -> str | None:
    """The zone's city in the reader's language ("Hà Nội / TP. Hồ Chí Minh"), None off the list."""
    found = city(zone)
    return None if found is None else _(found.name)


def zone_in_words(zone: str | None) -> str:
    """A zone as a sentence names it, in brackets: "(Paris time)", "(heure de Paris)",
    "(UTC)", "(Asia/Kolkata)" for a zone off the list."""
    if not zone or zone == "UTC":
        return "(UTC)"
    name = city_name(zone)
    return _("(%(city)s time)", city=name) if name else f"({zone})"


def picker(zone: str | None) -> dict[str, object]:
    """What the zone picker shows: the cities in the reader's language (sorted as they read),
    the zone chosen, and whether it is off the list (then "other…" is open on it)."""
    cities = sorted(((c.zone, _(c.name)) for c in CITIES), key=lambda pair: pair[1].casefold())
    chosen = _SAME_ZONE.get(zone or "", zone or "UTC")
    return {"cities": cities, "chosen": chosen, "other": chosen not in _CITY_OF and chosen != "UTC",
            "zones": every_zone()}


def zone_from_form(form: Mapping[str, str]) -> str:
    """The zone a picker's form chose: a city or UTC, or with "Other…" the full list's choice."""
    chosen = (form.get("timezone") or "").strip()
    return (form.get("timezone_other") or "").strip() if chosen == "other" else chosen
