"""The workspace: named values, the statements that made them, and events for the panels.

``Workspace`` is the model behind the Workspace, Code and (with ``origin``) Memory and graph
panels. It never imports Qt: panels subscribe to its psygnal events.

Events (``ws.events``): ``added(name)``, ``changed(name)``, ``removed(name)``,
``renamed(old, new)``, ``selected(name | None)``, ``output(text)`` (captured ``print`` output,
then each warning note: a :class:`~tensor_explorer.core.catalog.Message` whose ``str`` is
``"warning: <note>"`` and a newline, shown in a language with ``catalog.text_in``),
``ran(record)`` (one :class:`Record` per successful top-level statement).

Session files (``save``, ``open``, ``load_session``) are read and written by
:mod:`tensor_explorer.core.session`, which depends on this module and never the other way round:
it registers its reader and writer here (:func:`use_session_files`) when it is imported, and
importing ``tensor_explorer.core`` imports it. What a session restores goes in through one
public method, :meth:`Workspace.replace_contents`.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import keyword
import math
import os
import textwrap
import threading
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np
import torch
from psygnal import Signal, SignalGroup

from . import graph_modules, sandbox
from .catalog import Message
from .devices import check_device
from .runner import (
    Controller,
    Outcome,
    ProgramError,
    Runner,
    Statement,
    busy_error,
    compile_program,
    device_error,
    is_hidden,
)
from .undo import Change, Names, watching

__all__ = ["Origin", "Record", "SessionFiles", "Workspace", "WorkspaceBusy", "WorkspaceEvents",
           "check_name",
           "use_session_files"]

#: values with more elements than this are written into scripts as a comment, not a literal
LITERAL_LIMIT = 1000


class WorkspaceBusy(RuntimeError):
    """A change was asked of the workspace while a program runs in it (wait, or ``cancel()``
    it, and ask again); ``args[0]`` is a catalog Message."""


class WorkspaceEvents(SignalGroup):
    """The events a :class:`Workspace` emits (from the thread that changed it)."""

    added = Signal(str)
    changed = Signal(str)
    removed = Signal(str)
    renamed = Signal(str, str)
    selected = Signal(object)
    output = Signal(str)
    ran = Signal(object)
    #: a change made while ``track_changes`` is on: an :class:`~.Change` to undo
    undoable = Signal(object)
    #: a change that cannot be undone (why, in English): what was undoable before is gone
    not_undoable = Signal(str)


@dataclass(frozen=True)
class Origin:
    """How a workspace value was made.

    ``kind`` is ``"run"`` (a statement bound it) or ``"set"`` (handed in with ``ws[name] =``).
    For ``"run"``: ``statement`` is the top-level statement's text, ``call`` the expression
    that produced the value (``"torch.from_numpy(array)"``), ``function`` the callee when it is
    a call (``"torch.from_numpy"``, ``"y.detach"``), ``contexts`` the ``with`` context managers
    around the binding (``("torch.no_grad()",)``), ``grad_mode`` the innermost of
    ``no_grad``/``inference_mode``/``enable_grad``/``set_grad_enabled`` among them, ``device``
    the device the program ran on, ``line`` the statement's line in its program.
    """

    name: str
    kind: str
    statement: str | None = None
    call: str | None = None
    function: str | None = None
    contexts: tuple[str, ...] = ()
    grad_mode: str | None = None
    device: str | None = None
    line: int | None = None
    binding: str = "assign"  # "assign" | "def" | "class" | "import" | "for" | "with" | "set"
    file: str | None = None  # "set": the file it was opened from ("data.npz [x]": a member)

    @property
    def cut_off(self) -> str | None:
        """Why a tensor made here is cut off from the autograd graph, if the code says so:
        ``"inference_mode"``, ``"no_grad"`` or ``"detach"``."""
        if self.grad_mode == "inference_mode":
            return "inference_mode"
        if self.grad_mode == "no_grad" or (
            self.grad_mode == "set_grad_enabled"
            and any("set_grad_enabled(False)" in c.replace(" ", "") for c in self.contexts)
        ):
            return "no_grad"
        if self.function and self.function.split(".")[-1] in ("detach", "detach_"):
            return "detach"
        return None


@dataclass(frozen=True)
class Record:
    """One entry of the workspace history.

    ``kind``: ``"run"`` (a successful top-level statement; ``source`` is its text; ``restricted``
    when it ran under the restricted policy, as every statement read from a file does), ``"set"``
    (a value handed in; ``source`` is the script text that rebuilds it), ``"delete"``,
    ``"rename"`` or ``"autograd"`` (backward, zero_grad or retain_grad done from the graph pane;
    ``source`` is the Python that does the same, see :meth:`Workspace.note`).
    ``bound``/``changed``/``deleted``: names, in order. ``made``: for each bound name the
    expression that produced it. ``output``: what it printed; ``notes``: warnings;
    ``result``: the repr of an expression statement's value.
    """

    kind: str
    source: str
    line: int | None = None
    device: str | None = None
    bound: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    made: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))
    output: str = ""
    notes: tuple[str, ...] = ()
    result: str | None = None
    #: it ran under the restricted policy (code from a file not trusted): replay it so
    restricted: bool = False


class Workspace:
    """Named values (tensors, arrays, modules, plain results) in insertion order.

    ``ws[name] = value`` adds or replaces, ``ws[name]`` reads, ``del ws[name]`` removes,
    ``ws.run(source)`` runs statements in the restricted runner. See the module docstring for
    the events.
    """

    def __init__(self, *, restricted: bool = False, time_limit: float | None = None,
                 max_steps: int | None = None) -> None:
        """``restricted=False`` (the default): code run here is the user's own and runs as the
        Python they would write anywhere (imports, classes, ``_``, dunders), with the runner's
        origins, error explanations, rollback and Stop. ``restricted=True``: code from someone
        else (a lesson or program file): the restricted runner's policy (:mod:`.sandbox`).
        One run can ask for the other mode (``run(..., restricted=...)``).

        ``time_limit`` (seconds) and ``max_steps`` (loop/function steps) bound each run."""
        self.events = WorkspaceEvents()
        self.restricted = restricted
        self.time_limit = time_limit
        self.max_steps = max_steps
        self._ctrl = Controller()
        runtime = sandbox.runtime_names(self._ctrl.tick)
        #: the user's values, and the namespace the user's own code runs in (full builtins,
        #: the real modules)
        self._ns: dict[str, Any] = {
            "__name__": "__main__", **runtime,
            "__builtins__": {**vars(builtins), "print": self._ctrl.print},
            **_REAL_MODULES, "math": math,
        }
        #: where restricted code runs: its own dict, so that what it defines always finds the
        #: safe builtins (CPython takes a new function's builtins from its globals when the
        #: function is made, e.g. a comprehension inside a program's method, called later);
        #: the values are copied over before a restricted statement and back after it
        self._rns: dict[str, Any] = {
            "__name__": "__main__", **runtime,
            "__builtins__": sandbox.make_builtins(self._ctrl.print),
            **sandbox.prebound(),
        }
        #: names whose values the user's own code (or hands) made (see :meth:`trusted_code`)
        self._user_names: set[str] = set()
        self._runner = Runner(self._ns, self._ctrl)
        self._rrunner = Runner(self._rns, self._ctrl)
        self._lock = threading.Lock()
        self._history: list[Record] = []
        self._origins: dict[str, Origin] = {}
        self._selected: str | None = None
        self.last_output = ""
        self.last_notes: tuple[str, ...] = ()
        self.last_result: str | None = None
        #: notes from opening a session file (values not saved, CUDA values opened on the CPU)
        self.session_notes: tuple[str, ...] = ()
        #: what a session from elsewhere held as code and did not run (its classes' and
        #: functions' source, the statements that made its modules): None when nothing waits.
        #: Opaque here: :func:`tensor_explorer.core.session.rebuild_code` runs it once the user
        #: trusts the session
        self.session_code: object | None = None
        #: record each change for undo (the window turns it on; off: nothing is copied)
        self.track_changes = False

    def _invalidate(self) -> None:
        self._runner.invalidate()
        self._rrunner.invalidate()

    def _to_restricted(self) -> None:
        """Copy the values into the restricted namespace, where functions of programs look up
        their globals: plain data and what programs made, never the user's code (a program's
        function must not call the user's function, even when the user calls it), nor the
        real modules (there the proxies stand for them)."""
        ns, rns, mine = self._ns, self._rns, self._user_names
        for name in [n for n in rns if n not in _KEEP_RESTRICTED and n not in ns]:
            del rns[name]  # deleted since
        for name, value in ns.items():
            if name in _NOT_SHARED or isinstance(value, types.ModuleType):
                continue
            if name in mine and not _plain_data(value):
                rns.pop(name, None)
            elif rns.get(name, _NOTHING) is not value:
                rns[name] = value

    def _from_restricted(self, before: set[str]) -> None:
        """Copy back what a restricted statement bound, changed or deleted. Not copied: module
        proxies, and names that would shadow a builtin or torch/np/nn/F/math for the user's own
        code (those stay the program's)."""
        ns, rns = self._ns, self._rns
        for name, value in rns.items():
            if (name in _NOT_SHARED or name in _SHADOWING or
                    isinstance(value, sandbox.ModuleProxy)):
                continue
            if ns.get(name, _NOTHING) is not value:
                ns[name] = value
        for name in before - rns.keys():
            if name not in _NOT_SHARED and name not in _SHADOWING:
                ns.pop(name, None)

    def text_of(self, value: Any, limit: int = 500, time_limit: float = 0.2) -> str:
        """``repr(value)`` for a panel, bounded: a class of a program may have its own
        ``__repr__``, which then runs under ``time_limit`` seconds (a loop in it is stopped)
        and the restricted policy; an error, refusal or stop gives a placeholder instead."""
        placeholder = f"<{type(value).__name__}>"
        if not self._lock.acquire(blocking=False):
            return placeholder + " (a program is running)"
        try:
            self._ctrl.start(time_limit, None)
            sandbox.take_refusals()
            try:
                text = repr(value)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # Refused, Stopped, the program's own error
                text = f"{placeholder}: {type(exc).__name__}"
            if sandbox.take_refusals() or not isinstance(text, str):
                text = placeholder
        finally:
            self._ctrl.stop()
            self._lock.release()
        return text if len(text) <= limit else text[:limit] + "…"

    def trusted_code(self) -> list[str]:
        """The names (hidden ones included) whose values the user's own full-Python code or
        hands made and that are more than plain data (functions, classes and their instances,
        builtins such as ``open``, tensors with hooks or a graph...): a restricted
        program could make them run the user's code, so it may not share the workspace."""
        ns = self._ns
        return [name for name in self._user_names  # (modules never reach restricted code)
                if name in ns and not isinstance(ns[name], types.ModuleType)
                and not _plain_data(ns[name])]

    def _note_provenance(self, before: dict[str, Any], trusted: bool) -> None:
        """Names a run bound or changed now belong to the user (a trusted run) or to a
        program from a file (a restricted run). A trusted run may also have changed any
        object in place (given a program's object a method of the user's): after one, every
        value that is more than plain data counts as the user's."""
        for name, value in self._ns.items():
            if name in _NOT_SHARED:
                continue
            if trusted and (before.get(name, _NOTHING) is not value or not _plain_data(value)):
                self._user_names.add(name)
            elif not trusted and before.get(name, _NOTHING) is not value:
                self._user_names.discard(name)
        self._user_names.intersection_update(self._ns)

    # -- mapping -------------------------------------------------------------------------------

    def names(self) -> list[str]:
        """The value names, in insertion order."""
        return [name for name, _ in self._runner.user_items()]

    def items(self) -> list[tuple[str, Any]]:
        """(name, value) pairs, in insertion order."""
        return list(self._runner.user_items())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._ns and not is_hidden(name, self._ns[name])

    def __getitem__(self, name: str) -> Any:
        if name not in self:
            raise KeyError(name)
        return self._ns[name]

    def get(self, name: str, default: Any = None) -> Any:
        """``ws[name]``, or ``default`` when there is no such value. A qualified name reaches
        into a module: ``ws.get("net.hidden.weight")`` (see :meth:`member`)."""
        try:
            return self[name]
        except KeyError:
            member = self.member(name) if isinstance(name, str) and "." in name else None
            return default if member is None else member

    def member(self, qualified: str) -> Any:
        """The parameter, buffer or submodule ``qualified`` names inside a module of the
        workspace (``"net.hidden.weight"``, ``"net.hidden"``), or a field of a record (a
        structured NumPy array: ``"data.x"``, ``"data.pos.x"``: the field's own array, a view of
        the record's memory), or None."""
        root, _, rest = qualified.partition(".")
        module = self._ns.get(root) if root in self else None
        if rest and isinstance(module, np.ndarray) and module.dtype.names:
            return record_field(module, rest)
        if not rest or not isinstance(module, torch.nn.Module):
            return None
        for get in (module.get_parameter, module.get_buffer, module.get_submodule):
            try:
                return get(rest)
            except (AttributeError, TypeError):
                continue
        return None

    def __setitem__(self, name: str, value: Any) -> None:
        self.set(name, value)

    def set(self, name: str, value: Any, *, file: str | None = None) -> None:
        """``ws[name] = value``; ``file`` is the file it was read from, when it was (its
        origin says so: the Inspector shows "opened from data.npy")."""
        check_name(name)
        with self._changing(f"set {name}", watch=False), self._exclusive():
            existed = name in self
            self._ns[name] = value
            self._user_names.add(name)  # handed in: the user's (explore(), the API)
            self._invalidate()
            script = _value_script(name, value)
            self._history.append(
                Record(
                    "set",
                    script,
                    bound=() if existed else (name,),
                    changed=(name,) if existed else (),
                )
            )
            self._origins[name] = Origin(name, "set", binding="set", file=file)
        (self.events.changed if existed else self.events.added).emit(name)

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        with self._changing(f"del {name}", watch=False), self._exclusive():
            del self._ns[name]
            self._invalidate()
            self._origins.pop(name, None)
            self._history.append(Record("delete", f"del {name}", deleted=(name,)))
        self.events.removed.emit(name)
        if self._selected == name:
            self.selected = None

    def rename(self, old: str, new: str) -> None:
        """Give the value ``old`` the name ``new`` (keeping its place in the order)."""
        if old not in self:
            raise KeyError(old)
        check_name(new)
        if new in self._ns:
            raise ValueError(f"{new!r} is already used")
        with self._changing(f"rename {old} to {new}", watch=False), self._exclusive():
            items = [(new if k == old else k, v) for k, v in self._ns.items()]
            self._ns.clear()
            self._ns.update(items)
            self._invalidate()
            if old in self._origins:
                self._origins[new] = self._origins.pop(old)
            if old in self._user_names:
                self._user_names.discard(old)
                self._user_names.add(new)
            self._history.append(
                Record("rename", f"{new} = {old}\ndel {old}", bound=(new,), deleted=(old,))
            )
        self.events.renamed.emit(old, new)
        if self._selected == old:
            self._selected = new
            self.events.selected.emit(new)

    def clear(self) -> None:
        """Forget every value, the history and the selection; emit ``removed`` for each name
        (in order) and ``selected(None)`` when something was selected."""
        with self._changing("clear the workspace", watch=False), self._exclusive():
            names = self.names()
            for ns in (self._ns, self._rns):  # hidden names too (`_`, imports): all of it
                for name in [n for n in ns if n not in _RUNTIME_NAMES]:
                    del ns[name]
            self._ns.update(_REAL_MODULES, math=math)
            self._rns.update(sandbox.prebound())
            self._invalidate()
            self._runner.functions.clear()
            self._rrunner.functions.clear()
            self._history.clear()
            self._origins.clear()
            self._user_names.intersection_update(self._ns)
            self.session_notes = ()
            self.session_code = None
        for name in names:
            self.events.removed.emit(name)
        if self._selected is not None:
            self._selected = None
            self.events.selected.emit(None)

    # -- sessions ------------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the whole workspace (values, names, order, ``requires_grad``, ``.grad``,
        history, origins, selection, and which values share memory) to the session file
        ``path``, atomically. See :mod:`tensor_explorer.core.session`."""
        files = session_files()
        with self._exclusive():
            files.save(self, path)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Workspace:
        """A new workspace from the session file ``path``. Nothing is unpickled; a corrupt or
        hostile file raises :class:`~tensor_explorer.core.loading.LoadError`. Notes (values
        that were not saved, CUDA values opened on the CPU) are in ``session_notes``."""
        return session_files().open(path)

    def load_session(self, path: str | os.PathLike[str]) -> list[str]:
        """Replace this workspace's contents with the session file ``path``; return the names.

        Atomic as far as the file goes: a corrupt or hostile file raises
        :class:`~tensor_explorer.core.loading.LoadError` before anything here changes. The
        replacement is one change (:meth:`replace_contents`) that cannot be undone."""
        if self.running:
            raise WorkspaceBusy(Message("workspace.busy"))
        session_files().open(path, self)
        return self.names()

    def replace_contents(
        self,
        values: Mapping[str, Any],
        *,
        history: Sequence[Record] = (),
        origins: Mapping[str, Origin] | None = None,
        selected: str | None = None,
        notes: Sequence[str] = (),
        rebuild: Callable[[list[str]], Mapping[str, Any]] | None = None,
        order: Sequence[str] | None = None,
        reason: str = Message("undo.replaced"),
        code: object | None = None,
    ) -> list[str]:
        """Replace everything this workspace holds, as one change; return the names.

        What it had (values, hidden names, history, origins, selection) is forgotten and
        ``values`` take their place: data read from somewhere (a session file), not code of
        the user's, so a restricted program may share the workspace with them. ``rebuild``,
        when given, is then called with a list to add notes to: it may run statements here
        (:meth:`run`, :meth:`__delitem__`) to remake what is not data (a function, a module,
        whose code then belongs to this workspace) and returns the values it made, by name.
        The values are listed in ``order`` (default: ``values``', then ``rebuild``'s); a name
        in ``order`` that neither gives is left out, and so is anything else a statement of
        ``rebuild`` bound. Then ``history`` is the history, ``origins`` the origins of the
        values listed, ``selected`` the selection (when it is one of them), ``notes`` (and
        those ``rebuild`` added) the ``session_notes``, ``code`` the ``session_code`` (what a
        session held as code and did not run).

        The events are those of the whole replacement, nothing in between: ``removed`` for
        each name it had, ``selected(None)`` when something was selected, ``added`` for each
        name it has now, ``selected(name)`` when the selection is one, and, while
        ``track_changes`` is on, ``not_undoable(reason)``: what could be undone does not lead
        to the new contents.
        """
        if self.running:
            raise WorkspaceBusy(Message("workspace.busy"))
        for name in values:
            check_name(name)
        old_names, old_selected = self.names(), self._selected
        tracking, self.track_changes = self.track_changes, False
        added_notes: list[str] = []
        try:
            with self.events.blocked():
                self.clear()
                with self._exclusive():
                    self._ns.update(values)
                    self._invalidate()
                made = dict(rebuild(added_notes)) if rebuild is not None else {}
            every = {**values, **made}
            names = list(every) if order is None else [n for n in order if n in every]
            with self._exclusive():
                ns = self._ns
                hidden = {k: v for k, v in ns.items() if is_hidden(k, v)}
                ns.clear()
                ns.update(hidden)
                ns.update((name, every[name]) for name in names)
                self._invalidate()
                self._history[:] = history
                self._origins.clear()
                self._origins.update((k, v) for k, v in (origins or {}).items() if k in names)
                self._selected = selected if selected in names else None
                self._user_names.intersection_update(ns)
                self._to_restricted()  # what the rebuilt functions see: every value
                self.last_output, self.last_notes, self.last_result = "", (), None
                self.session_notes = (*notes, *added_notes)
                self.session_code = code
        finally:
            self.track_changes = tracking
            self._replaced(old_names, old_selected, reason)
        return self.names()

    def _replaced(self, old_names: list[str], old_selected: str | None, reason: str) -> None:
        for name in old_names:
            self.events.removed.emit(name)
        if old_selected is not None:
            self.events.selected.emit(None)
        for name in self.names():
            self.events.added.emit(name)
        if self._selected is not None:
            self.events.selected.emit(self._selected)
        if self.track_changes:
            self.events.not_undoable.emit(reason)

    # -- selection -----------------------------------------------------------------------------

    @property
    def selected(self) -> str | None:
        """The name the panels show, or None."""
        return self._selected

    @selected.setter
    def selected(self, name: str | None) -> None:
        """A value's name, or a module member's qualified name (``"net.hidden.weight"``)."""
        if name is not None and name not in self and self.member(name) is None:
            raise KeyError(name)
        if name != self._selected:
            self._selected = name
            self.events.selected.emit(name)

    # -- history -------------------------------------------------------------------------------

    @property
    def history(self) -> list[Record]:
        """Every successful statement, value handed in, deletion and rename, in order."""
        return list(self._history)

    def origin(self, name: str) -> Origin | None:
        """How the value ``name`` was made (None for an unknown name)."""
        return self._origins.get(name) if name in self else None

    def note(self, source: str, changed: tuple[str, ...] = (),
             change: Change | None = None) -> Record:
        """Record something done to the workspace's values outside a program, so that the
        script (:meth:`to_script`) and a saved session reproduce it: the graph pane's
        ``y.backward()``, ``x.grad = None``, ``h.retain_grad()``. ``source`` is the Python
        that does the same; ``changed`` the values it changed (each gets a ``changed`` event).
        A note is never replayed by a device re-run (it is not a program statement).
        ``change``: the change (:meth:`begin_change`) that recorded what the action did, to
        finish with this note (else the note is a change of its own).
        """
        known = tuple(dict.fromkeys(n for n in changed if n in self))
        record = Record("autograd", source, changed=known)
        own = nullcontext() if change is not None else self._changing(
            source.splitlines()[0] if source else "autograd", watch=False)
        with own, self._exclusive():
            self._history.append(record)
        if change is not None:
            self.end_change(change)
        for name in known:
            self.events.changed.emit(name)
        self.events.ran.emit(record)
        return record

    # -- undo ----------------------------------------------------------------------------------

    def _names_state(self) -> Names:
        return Names(dict(self._ns), dict(self._rns), dict(self._origins),
                          list(self._history), set(self._user_names), self._selected,
                          dict(self._runner.functions), dict(self._rrunner.functions))

    def begin_change(self, label: str, *, torch_writes: bool = True,
                     watch: bool = True) -> Change | None:
        """Start recording a change for undo (None while ``track_changes`` is off). Until
        :meth:`end_change`, what is written in place into the workspace's tensors (on this
        thread, when ``torch_writes``), arrays and ``.grad`` is kept (``watch``); call from the
        thread that makes the change."""
        if not self.track_changes:
            return None
        change = Change(label, self._names_state())
        if watch:
            cm = watching(change, list(self._ns.values()), torch_writes=torch_writes)
            cm.__enter__()
            change.watch = cm  # type: ignore[attr-defined]
        return change

    def end_change(self, change: Change | None) -> None:
        """Finish recording ``change`` and tell the window (``undoable`` or ``not_undoable``);
        a change that changed nothing is dropped."""
        if change is None:
            return
        cm = getattr(change, "watch", None)
        if cm is not None:
            cm.__exit__(None, None, None)
            del change.watch  # type: ignore[attr-defined]
        change.after = self._names_state()
        if not change.undoable:
            self.events.not_undoable.emit(change.reason)
            return
        b, a = change.before, change.after
        same = (len(b.history) == len(a.history) and b.ns.keys() == a.ns.keys()
                and all(b.ns[k] is a.ns[k] for k in b.ns) and not change.nbytes
                and not change.changes_gradients and not change.changes_metadata)
        if not same:
            self.events.undoable.emit(change)

    @contextlib.contextmanager
    def _changing(self, label: str, *, watch: bool = True) -> Iterator[None]:
        change = self.begin_change(label, watch=watch)
        try:
            yield
        finally:
            self.end_change(change)

    def undo(self, change: Change) -> None:
        """Put the workspace back as it was before ``change`` (the last change applied)."""
        self._apply(change, before=True)

    def redo(self, change: Change) -> None:
        """Make ``change`` again after :meth:`undo` (the first change undone)."""
        self._apply(change, before=False)

    def _apply(self, change: Change, *, before: bool) -> None:
        if change.applied != before or change.after is None:
            raise ValueError("undo and redo go in order: this change is not the one to "
                             f"{'undo' if before else 'redo'}")
        state = change.before if before else change.after
        old_names = self.names()
        old = {n: self._ns[n] for n in old_names}
        with self._exclusive():
            change.swap_data()
            change.set_grads(before=before)
            for mine, theirs in ((self._ns, state.ns), (self._rns, state.rns),
                                 (self._origins, state.origins),
                                 (self._runner.functions, state.functions),
                                 (self._rrunner.functions, state.rfunctions)):
                mine.clear()
                mine.update(theirs)
            self._history[:] = state.history
            self._user_names.clear()
            self._user_names.update(state.user_names)
            self._invalidate()
            change.applied = not before
        new_names = self.names()
        for name in old_names:
            if name not in self:
                self.events.removed.emit(name)
        for name in new_names:
            if name not in old:
                self.events.added.emit(name)
            else:
                self.events.changed.emit(name)  # (its object, or its data, may be back)
        selected = state.selected if state.selected in self else None
        if selected != self._selected:
            self._selected = selected
            self.events.selected.emit(selected)

    # -- running -------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True while a program runs."""
        return self._lock.locked()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Hold the workspace while code outside its runner evaluates against its values (a
        lesson's expectation), so no program runs meanwhile; raises :class:`ProgramError`
        (``kind="busy"``) at once when one is running."""
        if not self._lock.acquire(blocking=False):
            raise busy_error()
        try:
            yield
        finally:
            self._lock.release()

    def cancel(self) -> None:
        """Stop the running program (safe to call from any thread; no-op when idle)."""
        self._ctrl.cancel()

    def run(
        self,
        source: str,
        device: str | None = None,
        *,
        restricted: bool | None = None,
        time_limit: float | None = None,
        max_steps: int | None = None,
    ) -> list[str]:
        """Run ``source`` statement by statement; return the names bound or changed, in order.

        Factories run on ``device`` when given (``"cpu"``, ``"cuda:0"``, ``"meta"``...).
        ``restricted``: run under the restricted runner's policy (code from a file that is not
        trusted); default: the workspace's mode. A restricted run is refused while the
        workspace holds code the user ran as full Python (:meth:`trusted_code`), which it
        could otherwise call.
        Raises :class:`ProgramError`: statements before the failing one keep their effect, the
        failing one binds nothing. ``time_limit``/``max_steps`` override the workspace's.
        """
        try:
            dev = check_device(device)
        except ValueError as exc:
            raise device_error(exc) from None
        mode = self.restricted if restricted is None else restricted
        program = compile_program(source, restricted=mode)
        if mode:
            holding = self.trusted_code()
            if holding:
                raise restricted_among_trusted(holding)
        if not self._lock.acquire(blocking=False):
            raise busy_error()
        before = dict(self._ns)
        runner = self._rrunner if mode else self._runner
        if mode:
            self._to_restricted()
        grad_enabled = torch.is_grad_enabled()
        default_dtype = torch.get_default_dtype()
        ctrl = self._ctrl
        ctrl.start(
            time_limit if time_limit is not None else self.time_limit,
            max_steps if max_steps is not None else self.max_steps,
        )
        self._invalidate()
        names: list[str] = []
        notes: list[str] = []
        self.last_result = None
        emitted = 0
        guard = contextlib.ExitStack()
        change = self.begin_change(program.statements[0].source.splitlines()[0]
                                   if program.statements else "run")
        try:
            if not mode:  # full Python: factories still check the memory they are asked for
                guard.enter_context(sandbox.memory_guard())
            guard.enter_context(graph_modules.recording())  # which ops each module call made
            for stmt in program.statements:
                keys = set(self._rns)
                try:
                    outcome = runner.run_statement(program, stmt, dev)
                except ProgramError as err:
                    rest = ctrl.out.getvalue()[emitted:]
                    if rest:
                        self.events.output.emit(rest)
                    notes.extend(err.notes)
                    raise
                emitted = ctrl.out.tell()
                notes.extend(outcome.notes)
                if mode:
                    self._from_restricted(keys)
                    self._runner.invalidate()
                self._commit(stmt, outcome, dev, program.filename, restricted=mode)
                for name in (*outcome.bound, *outcome.changed):
                    if name not in names:
                        names.append(name)
        finally:
            guard.close()
            ctrl.stop()
            torch.set_grad_enabled(grad_enabled)
            torch.set_default_dtype(default_dtype)
            self._note_provenance(before, trusted=not mode)
            self._to_restricted()  # programs' functions see the values as they are now
            self.last_output = ctrl.out.getvalue()
            self.last_notes = tuple(notes)
            self._lock.release()
            self.end_change(change)
        return [n for n in names if n in self]

    def _commit(self, stmt: Statement, outcome: Outcome, device: str | None, _file: str, *,
                restricted: bool = False) -> None:
        made = {}
        for name in outcome.bound:
            binding = stmt.bindings.get(name)
            if binding is None:
                self._origins[name] = Origin(
                    name, "run", stmt.source, device=device, line=stmt.line
                )
                continue
            if binding.call:
                made[name] = binding.call
            self._origins[name] = Origin(
                name,
                "run",
                stmt.source,
                binding.call,
                binding.function,
                binding.contexts,
                binding.grad_mode,
                device,
                stmt.line,
                binding.kind,
            )
        for name in outcome.deleted:
            self._origins.pop(name, None)
        record = Record(
            "run",
            stmt.source,
            stmt.line,
            device,
            tuple(outcome.bound),
            tuple(outcome.changed),
            tuple(outcome.deleted),
            MappingProxyType(made),
            outcome.output,
            tuple(outcome.notes),
            outcome.result,
            restricted,
        )
        self._history.append(record)
        if outcome.result is not None:
            self.last_result = outcome.result
        for name in outcome.deleted:
            self.events.removed.emit(name)
            if self._selected == name:
                self.selected = None
        for name in outcome.bound:
            (self.events.added if name in outcome.added else self.events.changed).emit(name)
        for name in outcome.changed:
            self.events.changed.emit(name)
        if outcome.output:
            self.events.output.emit(outcome.output)
        for note in outcome.notes:  # a Message: the console shows it in its own language
            self.events.output.emit(Message("console.warning", note=note))
        self.events.ran.emit(record)

    def _exclusive(self) -> Any:
        if self._lock.locked():
            raise WorkspaceBusy(Message("workspace.busy"))
        return self._lock

    # -- script --------------------------------------------------------------------------------

    def to_script(self) -> str:
        """Python source that rebuilds this workspace's history (run it in a fresh workspace,
        or as a plain script)."""
        lines = [
            "import torch",
            "import numpy as np",
            "from torch import nn",
            "import torch.nn.functional as F",
            "",
        ]
        device_block: str | None = None
        for record in self._history:
            if record.kind == "run" and record.device:
                if device_block != record.device:
                    lines.append(f"with torch.device({record.device!r}):")
                    device_block = record.device
                lines.append(textwrap.indent(record.source, "    "))
                continue
            device_block = None
            lines.append(record.source)
        return "\n".join(lines) + "\n"

    # -- memory --------------------------------------------------------------------------------

    def relations(self) -> Sequence[Any]:
        """Every related pair of values, by name (from :mod:`tensor_explorer.core.memory`): a
        sequence computed lazily as it is read (iterate it pair by pair; ``len`` is known at
        once; ``list(...)`` computes them all), so a thousand views of one tensor cost nothing
        until their pairs are asked for."""
        from . import memory  # written separately; imported lazily

        relations_among = getattr(memory, "relations_among", None)
        if relations_among is None:
            raise NotImplementedError("tensor_explorer.core.memory.relations_among is missing")
        arrays = {n: v for n, v in self.items() if isinstance(v, torch.Tensor | np.ndarray)}
        return relations_among(arrays)


_REAL_MODULES: dict[str, Any] = {"torch": torch, "np": np, "nn": torch.nn,
                                  "F": torch.nn.functional}


_NOTHING = object()
#: what every namespace has: not values of the user or of a program
_RUNTIME_NAMES = frozenset({"__builtins__", "__name__", *sandbox.runtime_names(lambda: True)})
_NOT_SHARED = _RUNTIME_NAMES
#: what the restricted namespace keeps of its own (its proxies for the pre-bound names)
_KEEP_RESTRICTED = _RUNTIME_NAMES | frozenset(sandbox.prebound())
#: names a restricted program binds for itself only: rebinding them for the user's code would
#: make the user's own ``range(3)`` or ``torch.ones`` run the program's code
_SHADOWING = frozenset(vars(builtins)) | frozenset({"torch", "np", "nn", "F", "math"})
#: plain data a restricted program may share a workspace with (it cannot run code through it)
_PLAIN_SCALARS = (int, float, complex, bool, str, bytes, type(None), torch.dtype, torch.device,
                  np.generic)


def _plain_data(value: Any, depth: int = 0) -> bool:
    """Data that runs no code of the user's when a program uses it: numbers, strings, dtypes,
    NumPy arrays of numbers, plain tensors that are leaves without hooks, and small lists,
    tuples and dicts of those. (A tensor with a graph or a hook runs the user's hooks on
    backward; a module or function is code.)"""
    if isinstance(value, np.generic):
        return not value.dtype.hasobject  # (a record with an object field holds anything)
    if isinstance(value, _PLAIN_SCALARS):
        return type(value) in _PLAIN_SCALARS or isinstance(value, torch.dtype | torch.device)
    if isinstance(value, np.ndarray):
        return type(value) is np.ndarray and value.dtype.kind in "biufcmMS"
    if isinstance(value, torch.Tensor):
        return (type(value) in (torch.Tensor, torch.nn.Parameter) and value.grad_fn is None
                and not getattr(value, "_backward_hooks", None)
                and not getattr(value, "_post_accumulate_grad_hooks", None)
                and not vars(value))  # (no attributes of its own: t.on_change = print)
    if isinstance(value, torch.nn.Module):
        return _library_module(value)
    if depth < 3 and type(value) in (list, tuple) and len(value) <= 1000:
        return all(_plain_data(v, depth + 1) for v in value)
    if depth < 3 and type(value) is dict and len(value) <= 1000:
        return all(_plain_data(k, depth + 1) and _plain_data(v, depth + 1)
                   for k, v in value.items())
    return False


_MODULE_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
                 "_backward_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks")


_MODULE_TABLES = ("_parameters", "_buffers", "_modules")


def _library_module(module: torch.nn.Module) -> bool:
    """A torch.nn module made only of torch's own classes, with no hooks, plain parameters
    and no attribute of its own that is code (``layer.forward = lambda ...``): calling it runs
    torch's code only."""
    for sub in module.modules():
        if not type(sub).__module__.startswith("torch.nn."):
            return False
        for key, value in vars(sub).items():
            if key in _MODULE_TABLES:
                continue
            if "hook" in key:  # every table of hooks (and the flags beside them): empty
                if value:
                    return False
            elif not (_plain_data(value) or (type(value) in (set, frozenset) and all(
                    isinstance(v, str) for v in value))):
                return False
    return all(_plain_data(p) for p in module.parameters()) and all(
        _plain_data(b) for b in module.buffers())


def restricted_among_trusted(names: list[str]) -> ProgramError:
    """The refusal of a restricted run in a workspace holding the user's own code."""
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return ProgramError(
        f"Refused: this program runs restricted (it came from a file that is not trusted), and "
        f"the workspace holds code of your own ({shown}) that it could call. Trust the "
        "program to run it as full Python, or clear the workspace first.",
        kind="refused",
    )


class SessionFiles(Protocol):
    """What reads and writes session files (:mod:`tensor_explorer.core.session`)."""

    def save(self, ws: Workspace, path: str | os.PathLike[str]) -> None:
        """Write ``ws`` to ``path``."""

    def open(self, path: str | os.PathLike[str], into: Workspace | None = None) -> Workspace:
        """A new workspace from ``path`` (or ``into``, its contents replaced)."""


_session_files: SessionFiles | None = None


def use_session_files(files: SessionFiles) -> None:
    """Read and write session files with ``files`` (:mod:`.session` calls this when it is
    imported: it depends on this module, so this module cannot import it)."""
    global _session_files
    _session_files = files


def session_files() -> SessionFiles:
    """The session reader and writer :func:`use_session_files` registered."""
    if _session_files is None:  # importing tensor_explorer.core imports the session module
        raise RuntimeError("session files are not available: import tensor_explorer.core.session")
    return _session_files


def check_name(name: str) -> None:
    """Raise ValueError unless ``name`` can name a workspace value: a Python identifier, not a
    keyword, not starting with ``_``, not one of ``torch``/``np``/``nn``/``F``."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise ValueError(f"{name!r} is not a valid Python name")
    if name.startswith("_"):
        raise ValueError(f"{name!r}: names that start with '_' are reserved")
    if name in ("torch", "np", "nn", "F"):
        raise ValueError(f"{name!r} is reserved for the module of that name")


# ----- values as script text ------------------------------------------------------------------


def _number(x: Any) -> str:
    if isinstance(x, bool):
        return repr(x)
    if isinstance(x, float):
        if math.isnan(x):
            return 'float("nan")'
        if math.isinf(x):
            return 'float("inf")' if x > 0 else '-float("inf")'
        return repr(x)
    if isinstance(x, complex):
        return f"complex({_number(x.real)}, {_number(x.imag)})"
    return repr(x)


def _nested(values: Any) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested(v) for v in values) + "]"
    return _number(values)


def _value_script(name: str, value: Any) -> str:
    """``name = <literal>`` when ``value`` is small enough, else a marked comment."""
    if isinstance(value, torch.Tensor):
        return _tensor_script(name, value)
    if isinstance(value, np.ndarray):
        return _array_script(name, value)
    try:
        text = repr(value)
        if ast.literal_eval(text) == value and len(text) <= 20 * LITERAL_LIMIT:
            return f"{name} = {text}"
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    return f"# {name}: a {type(value).__name__} handed in directly; it cannot be written as code"


def _tensor_script(name: str, t: torch.Tensor) -> str:
    dtype = str(t.dtype)
    device = "" if t.device.type == "cpu" else f", device={str(t.device)!r}"
    grad = ", requires_grad=True" if t.requires_grad and t.is_leaf else ""
    if t.layout != torch.strided or t.is_quantized:
        return f"# {name}: a {t.layout} tensor handed in directly; it cannot be written as code"
    if t.device.type == "meta" or t.numel() == 0:
        return f"{name} = torch.empty({tuple(t.shape)}, dtype={dtype}{device}{grad})"
    if t.numel() > LITERAL_LIMIT:
        return (
            f"# {name}: tensor {tuple(t.shape)} {dtype} on {t.device} handed in directly "
            f"(too large to write out: {t.numel()} elements > {LITERAL_LIMIT}); NOT REBUILT"
        )
    values = t.detach().cpu().resolve_conj().resolve_neg().tolist()
    return f"{name} = torch.tensor({_nested(values)}, dtype={dtype}{device}{grad})"


def _array_script(name: str, a: np.ndarray) -> str:
    if a.dtype.kind not in "biufc":
        return f"# {name}: an ndarray of dtype {a.dtype} handed in directly; NOT REBUILT"
    dtype = repr(a.dtype.name if a.dtype.isnative else a.dtype.str)
    if a.size == 0:
        return f"{name} = np.zeros({a.shape}, dtype={dtype})"
    if a.size > LITERAL_LIMIT:
        return (
            f"# {name}: ndarray {a.shape} {a.dtype} handed in directly "
            f"(too large to write out: {a.size} elements > {LITERAL_LIMIT}); NOT REBUILT"
        )
    return f"{name} = np.array({_nested(a.tolist())}, dtype={dtype})"


def record_fields(record: np.ndarray, under: str = "") -> list[str]:
    """The paths of every field of a record (structured) array, nested fields by path
    (``["x", "pos", "pos.a", "pos.b"]``), in the order of its dtype."""
    out: list[str] = []
    for name in record.dtype.names or ():
        path = f"{under}.{name}" if under else name
        out.append(path)
        sub = record[name]
        if sub.dtype.names:
            out += record_fields(sub, path)
    return out


def record_field(record: np.ndarray, path: str) -> np.ndarray | None:
    """The field of ``record`` at ``path`` (``"pos.x"``), a view of its memory, or None."""
    value = record
    for name in path.split("."):
        if not value.dtype.names or name not in value.dtype.names:
            return None
        value = value[name]
    return value
