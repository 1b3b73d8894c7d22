"""Where the bundled samples are: inside the wheel, or beside the package in a checkout."""

from __future__ import annotations

from pathlib import Path


def samples_dir() -> Path:
    packaged = Path(__file__).with_name("samples")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "samples"
