"""The served folder both serve test modules use: one sample inside, a secret outside, and
symlinks that lead out of the folder (a file and a folder) and one that stays inside."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from inspector.bundled import samples_dir

SAMPLE = "09-redeclared-id-after-restart.json"


def make_served_folder(base: Path) -> dict[str, Path]:
    root, outside = base / "served", base / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    shutil.copy(samples_dir() / SAMPLE, root / SAMPLE)
    secret = outside / "secret.json"
    secret.write_text(json.dumps([{"role": "user", "content": "SECRET-OUTSIDE"}]), encoding="utf-8")
    (root / "link.json").symlink_to(secret)
    (root / "outdir").symlink_to(outside, target_is_directory=True)
    (root / "sub" / "link-in.json").symlink_to(root / SAMPLE)
    return {"root": root, "sample": root / SAMPLE, "secret": secret}
