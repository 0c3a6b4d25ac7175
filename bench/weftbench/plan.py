"""What to run: the binaries found, what they say they know, the configurations (columns)
and the groups (kernel x worker count) in the order they run."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import records as R
from .binaries import (COLUMN_VARIANTS, find_binary, probe_default_policy, read_name_list,
                       read_variant_kernels)
from .options import GROUPED_KERNELS, MODES, Options, parse_steal, steal_variant

# "serial" is weft's serial elision: a policy one may ask for by name, but not part of
# "all" (the serial binary is the baseline already)
NOT_IN_ALL = {"serial"}


class UsageError(Exception):
    """Bad arguments found only once the binaries have answered (exit 2)."""


@dataclass
class Inventory:
    """The binaries and what they said about themselves."""
    binaries: dict = field(default_factory=dict)       # system -> Path
    missing_bin: dict = field(default_factory=dict)    # system -> reason
    kernel_lists: dict = field(default_factory=dict)   # system -> list, or None if unknown
    policies: Optional[list] = None    # `weft-bench-weft --policy list`, None if unknown
    policy_list_error: Optional[str] = None
    # (system, column variant) -> the kernels `BIN --kernel list --variant V` names
    variant_kernels: dict = field(default_factory=dict)
    default_policy: Optional[str] = None
    notes: list = field(default_factory=list)          # said in the report's header

    def knows_kernel(self, system, kernel) -> bool:
        ks = self.kernel_lists.get(system)
        return ks is None or kernel in ks


@dataclass
class Plan:
    configs: list                  # Config, in column order
    groups: list                   # Group, in run order
    kernels: list
    policies: list                 # weft columns ("default" and names)
    steal: Optional[tuple] = None  # (L, R) of the steal-cost groups, or None
    # (label, kernel, variant, workers or None for every worker count) -> (status, reason)
    skipped: dict = field(default_factory=dict)

    def available(self, cfg, group, inv) -> bool:
        if cfg.system not in inv.binaries:
            return False
        k = (cfg.label, group.kernel, group.variant)
        return k + (None,) not in self.skipped and k + (group.workers,) not in self.skipped

    def skip_reason(self, cfg, group):
        k = (cfg.label, group.kernel, group.variant)
        return self.skipped.get(k + (group.workers,)) or self.skipped.get(k + (None,))


def discover(opts: Options) -> Inventory:
    """Finds each system's binary and asks it for its kernel list (weft: policy list)."""
    inv = Inventory()
    for s in opts.systems:
        path, reason = find_binary(s, opts)
        if path is None:
            inv.missing_bin[s] = reason
            continue
        inv.binaries[s] = path
        inv.kernel_lists[s], _ = read_name_list(path, "--kernel")
        for v in COLUMN_VARIANTS.get(s, []):
            names, why = read_variant_kernels(path, v)
            if names is None:
                inv.notes.append(f"no {s}:{v} column: {why}")
            else:
                inv.variant_kernels[(s, v)] = names
    if "weft" in inv.binaries:
        inv.policies, inv.policy_list_error = read_name_list(inv.binaries["weft"], "--policy")
    return inv


def resolve_kernels(opts: Options, inv: Inventory) -> list:
    """The kernels asked for; "all" (or no --kernels) is every kernel some binary lists (in the
    binaries' order) except those of the opt-in groups (options.KERNEL_GROUPS)."""
    requested = ["all"] if opts.kernels is None else opts.kernels
    names = []
    for x in requested:
        names += listed_kernels(opts, inv) if x == "all" else [x]
    names = list(dict.fromkeys(names))
    if opts.kernels is not None:
        check_kernel_names([k for k in opts.kernels if k != "all"], inv)
    return names


def listed_kernels(opts: Options, inv: Inventory) -> list:
    names = []
    for s in opts.systems:
        for k in inv.kernel_lists.get(s) or []:
            if k not in names and k not in GROUPED_KERNELS:
                names.append(k)
    return names


def check_kernel_names(kernels, inv: Inventory):
    """A kernel that no binary lists is a typo, not a missing column (when every binary
    found answered --kernel list)."""
    lists = [inv.kernel_lists.get(s) for s in inv.binaries]
    if not lists or any(ks is None for ks in lists):
        return
    known = sorted({k for ks in lists for k in ks})
    for k in kernels:
        if k not in known:
            raise UsageError(f"--kernels: no binary has a kernel '{k}' (accepted: all, nar, "
                             f"{', '.join(known)}: `BIN --kernel list`)")


def resolve_policies(opts: Options, inv: Inventory) -> list:
    """The weft columns: "default" and policy names, checked against --policy list."""
    if "weft" not in opts.systems or "weft" not in inv.binaries:
        return [p for p in opts.policies_requested if p != "all"] or ["default"]
    known = inv.policies
    out = []
    for x in opts.policies_requested:
        if x == "all":
            if known is None:
                raise UsageError(
                    f"--policies all needs weft's policy list, but {inv.policy_list_error}; "
                    "rebuild weft-bench-weft (scripts/build-bench.sh) or name the policies")
            names = ["default"] + [p for p in known if p not in NOT_IN_ALL]
        else:
            names = [x]
        for y in names:
            if y != "default" and known is not None and y not in known:
                raise UsageError(f"--policies: weft has no policy '{y}' (accepted: default, "
                                 f"all, {', '.join(known)}: `weft-bench-weft --policy list`)")
            if y not in out:
                out.append(y)
    if known is None and any(p != "default" for p in out):
        inv.notes.append(f"the policy names were not checked: {inv.policy_list_error}")
    return out


def drop_default_duplicate(policies: list, opts: Options, inv: Inventory, kernels: list):
    """Asks weft which policy it runs without --policy; that column is weft:default only."""
    if "weft" not in inv.binaries or "default" not in policies:
        return
    probe = next((k for k in kernels if inv.knows_kernel("weft", k)), None)
    if probe:
        inv.default_policy = probe_default_policy(inv.binaries["weft"], probe)
    if inv.default_policy in policies:
        policies.remove(inv.default_policy)
        inv.notes.append(f"weft's default policy is {inv.default_policy}: its column is "
                         f"weft:default (not run twice)")


def configs_for(systems: list, policies: list, inv=None, kernels=()) -> list:
    """The columns: each system, weft once per policy, and a column variant (COLUMN_VARIANTS)
    beside its system when one of the kernels has it."""
    out = []
    for s in systems:
        out += [R.Config("weft", p) for p in policies] if s == "weft" else [R.Config(s)]
        if inv is not None:
            out += [R.Config(s, variant=v) for v in COLUMN_VARIANTS.get(s, [])
                    if set(inv.variant_kernels.get((s, v), [])) & set(kernels)]
    return out


def build_groups(opts: Options, kernels: list, configs: list, steal) -> list:
    groups = [R.Group(k, "", w, list(configs)) for k in kernels for w in opts.workers]
    if steal is not None:
        peers = [c for c in configs if c.system != "serial" and not c.variant]
        groups += [R.Group("stress", steal_variant(steal), w, list(peers))
                   for w in opts.steal_workers]
    return groups


def skips_from_kernel_lists(groups: list, inv: Inventory) -> dict:
    """What --kernel list already tells: a kernel a binary lacks is a missing cell."""
    skipped = {}
    for g in groups:
        for c in g.configs:
            if c.system in inv.binaries and not inv.knows_kernel(c.system, g.kernel):
                skipped[(c.label, g.kernel, g.variant, None)] = (
                    R.MISSING, f"kernel {g.kernel} not in `weft-bench-{c.system} --kernel list`")
            elif c.variant and g.kernel not in inv.variant_kernels.get((c.system, c.variant), []):
                skipped[(c.label, g.kernel, g.variant, None)] = (
                    R.MISSING, f"kernel {g.kernel} has no variant '{c.variant}' (`weft-bench-"
                               f"{c.system} --kernel list --variant {c.variant}`)")
    return skipped


def build_plan(opts: Options, inv: Inventory, policies=None) -> Plan:
    """The plan for opts; policies (weft columns) default to the resolved request."""
    kernels = resolve_kernels(opts, inv)
    if policies is None:
        policies = resolve_policies(opts, inv)
        drop_default_duplicate(policies, opts, inv, kernels)
    steal = opts.steal
    if (opts.kernels is None or "all" in opts.kernels) and opts.steal_auto:
        # --kernels all: stress is known only now
        steal = parse_steal(MODES[opts.mode]["steal"]) if "stress" in kernels else None
    configs = configs_for(opts.systems, policies, inv, kernels)
    groups = build_groups(opts, kernels, configs, steal)
    return Plan(configs=configs, groups=groups, kernels=kernels, policies=policies,
                steal=steal, skipped=skips_from_kernel_lists(groups, inv))


def without_policy(plan: Plan, opts: Options, inv: Inventory, policy: str) -> Plan:
    return build_plan(opts, inv, [p for p in plan.policies if p != policy])
