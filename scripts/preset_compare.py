#!/usr/bin/env python3
"""Side by side: the parameters a calibrated preset fits, in its base preset and in another GPU's
calibration (docs/VALIDATION_H100.md: what the H100's own measurements changed, and how far each
H200-fitted value was from the H100's).

  scripts/preset_compare.py [CALIBRATED] [OTHER]
      (default models/presets/h100.calibrated.yaml models/presets/h200.calibrated.yaml)

A value is printed as the file writes it; a preset inherits what it does not list from its `base:`
(models/presets/NAME.yaml), which is followed here.
"""
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "models/presets"


def values(path: Path) -> dict:
    """Every {value, source} parameter as 'section.key' -> value, with the base's beneath."""
    doc = yaml.safe_load(path.read_text())
    out = values(PRESETS / f"{doc['base']}.yaml") if "base" in doc else {}
    for section, params in doc.items():
        if isinstance(params, dict):
            for key, p in params.items():
                if isinstance(p, dict) and "value" in p:
                    out[f"{section}.{key}"] = str(p["value"])
    return out


def main():
    cal = Path(sys.argv[1]) if len(sys.argv) > 1 else PRESETS / "h100.calibrated.yaml"
    other = Path(sys.argv[2]) if len(sys.argv) > 2 else PRESETS / "h200.calibrated.yaml"
    doc = yaml.safe_load(cal.read_text())
    fitted = [f"{s}.{k}" for s, ps in doc.items() if isinstance(ps, dict) for k in ps]
    base = values(PRESETS / f"{doc['base']}.yaml")
    mine, theirs = values(cal), values(other)
    print(f"| parameter | {doc['base']} (preset) | {cal.stem} (fitted) | {other.stem} |")
    print("|---|---|---|---|")
    for p in fitted:
        print(f"| {p} | {base.get(p, '-')} | {mine[p]} | {theirs.get(p, '-')} |")


if __name__ == "__main__":
    main()
