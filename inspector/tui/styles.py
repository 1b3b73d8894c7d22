"""Component styles as the theme means them, for widgets that draw their own lines.

``get_component_rich_style(partial=True)`` turns a theme colour with alpha, or the
contrasting ``auto`` colour behind ``$text-muted``, into a plain colour with nothing under
it: white, whatever the theme, so a light theme's header and chips were white on light
grey. Here each colour is laid over the widget's own background first, as Textual does for
a widget's own text."""

from __future__ import annotations

from rich.style import Style
from textual.widget import Widget


def component_style(widget: Widget, name: str) -> Style:
    """The text style, colour and background of component ``name``, blended over ``widget``'s
    background; cached per theme and background."""
    background = widget.background_colors[1]
    key = (name, widget.app.theme, background)
    cache: dict = widget.__dict__.setdefault("_themed_styles", {})
    style = cache.get(key)
    if style is None:
        styles = widget.get_component_styles(name)
        under = background
        style = Style() + styles.text_style
        if styles.has_rule("background"):
            under = background + styles.background
            style += Style(bgcolor=under.rich_color)
        if styles.has_rule("color"):
            style += Style(color=(under + styles.color).rich_color)
        cache[key] = style
    return style
