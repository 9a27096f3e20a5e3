"""Type stubs of the hindsight package (see docs/PYTHON.md)."""

import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

PathLike = Union[str, "os.PathLike[str]"]

class SpecError(ValueError):
    """A specification that is not well-formed."""

    line: Optional[int]
    column: Optional[int]
    message: str

class TraceError(ValueError):
    """Bad input in a trace, or an event the monitor refused."""

    line: Optional[int]
    column: Optional[int]
    message: str
    outcome: "Outcome"

class Violation:
    """A property violated at an event."""

    @property
    def property(self) -> str: ...
    @property
    def event(self) -> int: ...
    @property
    def line(self) -> int: ...
    @property
    def time(self) -> Optional[int]: ...
    @property
    def args(self) -> Tuple[str, ...]: ...
    @property
    def witness(self) -> Optional[Dict[str, Optional[str]]]: ...

class Outcome:
    """The result of a run."""

    @property
    def status(self) -> str: ...
    @property
    def violations(self) -> List[Violation]: ...
    @property
    def summary(self) -> Dict[str, Any]: ...
    @property
    def warnings(self) -> List[str]: ...
    def to_pandas(self) -> Any: ...

class Monitor:
    """A monitor fed one event at a time."""

    def __init__(
        self,
        spec: str,
        *,
        signature: Optional[str] = None,
        negate: bool = False,
        witness: bool = False,
        strict_time: bool = False,
        end_of_trace: Optional[str] = None,
    ) -> None: ...
    def step(self, name: str, *args: Any, time: Optional[int] = None) -> List[Violation]: ...
    def step_many(self, events: Iterable[Sequence[Any]], *, timed: bool = False) -> List[Violation]: ...
    def finish(self) -> List[Violation]: ...
    @property
    def properties(self) -> List[str]: ...
    @property
    def events(self) -> int: ...

class Equivalence:
    """The answer of equiv()."""

    @property
    def equivalent(self) -> bool: ...
    @property
    def trace(self) -> List[Tuple[str, ...]]: ...
    @property
    def verdicts(self) -> List[Tuple[List[str], List[str]]]: ...
    @property
    def undecided(self) -> List[Tuple[List[str], List[str]]]: ...
    @property
    def searched(self) -> Dict[str, Any]: ...
    def __bool__(self) -> bool: ...

def run(
    spec: PathLike,
    trace: Any,
    *,
    sig: Optional[PathLike] = None,
    mfotl: bool = False,
    negate: bool = False,
    timed: bool = False,
    witness: bool = False,
    strict: bool = False,
    skip_bad_lines: bool = False,
    max_skipped: float = 0.1,
    stop_at_first: bool = False,
    strict_time: bool = False,
    jobs: Optional[int] = None,
    end_of_trace: Optional[str] = None,
) -> Outcome: ...
def equiv(
    a: PathLike,
    b: PathLike,
    *,
    sig: Optional[PathLike] = None,
    mfotl: bool = False,
    negate: bool = False,
    length: int = 4,
    values: int = 2,
    random: int = 1000,
    random_length: int = 20,
    seed: int = 0,
) -> Equivalence: ...
def gen(
    spec: PathLike,
    *,
    sig: Optional[PathLike] = None,
    mfotl: bool = False,
    events: int = 100,
    values: int = 3,
    seed: int = 0,
    timed: bool = False,
    max_gap: int = 1,
) -> List[Tuple[Any, ...]]: ...
