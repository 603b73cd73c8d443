"""How two colours differ to a reader: WCAG contrast, and the CIEDE2000 distance after simulating a
colour-vision deficiency (Machado, Oliveira and Fernandes 2009, full severity, applied to linear
RGB) or a greyscale display. Used by tests/pbem/test_card_colours.py."""
from __future__ import annotations

import math
from collections.abc import Callable

RGB = tuple[float, float, float]

# Machado et al. 2009, severity 1.0, on linear sRGB.
_MACHADO: dict[str, tuple[RGB, RGB, RGB]] = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}


def linear(hex_colour: str) -> RGB:
    """"#c62828" -> linear sRGB channels in 0..1."""
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return (r, g, b)


def luminance(rgb: RGB) -> float:
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two sRGB colours."""
    la, lb = sorted((luminance(linear(a)), luminance(linear(b))), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _simulate(matrix: tuple[RGB, RGB, RGB]) -> Callable[[RGB], RGB]:
    def seen(rgb: RGB) -> RGB:
        out = [sum(m * c for m, c in zip(row, rgb)) for row in matrix]
        return (min(max(out[0], 0.0), 1.0), min(max(out[1], 0.0), 1.0), min(max(out[2], 0.0), 1.0))
    return seen


def _greyscale(rgb: RGB) -> RGB:
    y = luminance(rgb)
    return (y, y, y)


VISIONS: dict[str, Callable[[RGB], RGB]] = {
    "normal": lambda rgb: rgb,
    **{name: _simulate(m) for name, m in _MACHADO.items()},
    "greyscale": _greyscale,
}


def lab(rgb: RGB) -> RGB:
    """Linear sRGB -> CIE L*a*b* (D65)."""
    r, g, b = rgb
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29
    return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))


def ciede2000(lab1: RGB, lab2: RGB) -> float:
    """The CIEDE2000 colour difference (Sharma, Wu and Dalal 2005), kL = kC = kH = 1."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        if dh > 180:
            dh -= 360
        elif dh < -180:
            dh += 360
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (dc / s_c) * (d_h / s_h))


def distance(a: str, b: str, vision: str = "normal") -> float:
    """CIEDE2000 between two sRGB colours as a reader with `vision` sees them."""
    seen = VISIONS[vision]
    return ciede2000(lab(seen(linear(a))), lab(seen(linear(b))))
