"""The arguments and options of ``gauntlet run`` (``mg.run``) and ``gauntlet reproduce`` (``mg.reproduce``),
declared once (`mtgauntlet.options`): the commands and the functions' signatures, ``Args`` and checks are made
from these dataclasses."""

from dataclasses import dataclass
from pathlib import Path

from mtgauntlet.options import argument, option


@dataclass(kw_only=True, frozen=True)
class RunOptions:
    """Run a recipe end to end: every build (resuming; complete and unchanged builds are skipped), validation,
    the release (with the resolved recipe inside), the audit report and publishing when the recipe asks."""

    recipe: str | Path = argument(
        metavar="RECIPE", help="Recipe YAML (see README: Recipes).", doc="The recipe YAML (README: Recipes)."
    )
    dry_run: bool = option(
        False,
        builds=False,
        help="Print the plan (commands, what is done already); run nothing.",
        doc="Only plan: return the `RecipePlan` (the commands, which builds are done); run nothing.",
    )
    work: str | Path | None = option(
        None,
        builds=False,
        help="Work directory for builds and reports [default: gauntlet-work/<release name>].",
        doc="Work directory for builds and reports (default ``gauntlet-work/<release name>``).",
    )
    releases: str | Path = option("releases", builds=False, help="Releases root the release is written to.")


@dataclass(kw_only=True, frozen=True)
class ReproduceOptions:
    """Verify a release, rebuild it from its stored recipe on this machine and compare, per record kind, the ids
    and every text and value; exit 0 when identical, 1 when anything differs (each difference listed) or the
    release does not verify."""

    release_dir: str | Path = argument(
        metavar="RELEASE_DIR",
        help="A release made by `gauntlet run` (it holds recipe.yaml).",
        doc="A release made by `run` / ``gauntlet run`` (it holds ``recipe.yaml``), or a `Release`.",
    )
    inputs: str | Path | None = option(
        None,
        help="Folder holding the recipe's input files (by path, file name or sha256), where their recorded paths do "
        "not exist on this machine.",
    )
    work: str | Path | None = option(
        None,
        builds=False,
        help="Where to rebuild [default: a temporary folder, removed afterwards].",
        doc="Where to rebuild (default: a temporary folder, removed afterwards).",
    )
