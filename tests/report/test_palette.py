import re
from pathlib import Path

from randqa._report.palette import VERDICT_STYLE
from randqa.results import Verdict

CSS = Path(__file__).resolve().parents[2] / "templates" / "report.css"


def _full(colour: str) -> str:
    """#abc as #aabbcc, for comparing spellings of one colour."""
    return "#" + "".join(c * 2 for c in colour[1:]) if len(colour) == 4 else colour


def test_every_verdict_has_its_own_colour_and_marker():
    assert set(VERDICT_STYLE) == set(Verdict)
    assert len({s.colour for s in VERDICT_STYLE.values()}) == len(Verdict)
    assert len({s.marker for s in VERDICT_STYLE.values()}) == len(Verdict)


def test_badges_wear_the_html_reports_colours():
    css = CSS.read_text()
    for verdict, style in VERDICT_STYLE.items():
        name = verdict.value
        text = re.search(rf"--{name}: (#[0-9a-f]+);", css)
        background = re.search(rf"--{name}-bg: (#[0-9a-f]+);", css)
        assert text and background, name
        assert (_full(text.group(1)), _full(background.group(1))) == (style.badge_colour, style.badge_background)
