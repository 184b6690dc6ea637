"""The restricted runner: compile a program, run it statement by statement, explain failures.

A *program* is Python source (a code-bar line, a lesson step, a ``.py`` file). It is parsed,
checked against the sandbox policy (:mod:`tensor_explorer.core.sandbox`) and rewritten as a
whole before anything runs. Its top-level statements then run one at a time, like a REPL, in a
namespace dict that :class:`~tensor_explorer.core.workspace.Workspace` owns:

- a statement that fails binds nothing: the namespace is restored to what it was before it, and
  small tensors and arrays it changed in place are written back (best effort, see
  :class:`Runner`);
- what each successful statement bound, changed in place (subscript writes, in-place methods,
  a ``_version`` that went up, ``.grad`` filled by ``backward``) or deleted is reported, with
  values that share memory with a changed one counted as changed too;
- ``print`` output is captured and warnings are turned into notes with plain words;
- failures become :class:`ProgramError`, with the 1-based line, torch's own message, the usual
  cause in plain words (:mod:`tensor_explorer.core.explain`) and the operands of the failing
  line with their shape, dtype and device.
"""

from __future__ import annotations

import ast
import contextlib
import io
import itertools
import re
import time
import types
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from . import sandbox
from .catalog import Message, message_of, render, text_in
from .explain import explain, explain_warning

__all__ = ["Binding", "Controller", "Outcome", "Program", "ProgramError", "Runner", "Statement"]

_PROGRAM_PREFIX = "<program"
#: the end of the file name of code compiled from a trusted (full Python) program
TRUSTED_SUFFIX = ", trusted>"
_serial = itertools.count(1)
_MAX_OUTPUT = 1 << 20  # characters of print output kept per run
_SNAPSHOT_ONE = 16 << 20  # bytes: larger tensors/arrays are not saved for rollback
_SNAPSHOT_ALL = 64 << 20

#: methods that change their object in place although they do not end in "_"
_INPLACE_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "add", "discard",
     "setdefault", "sort", "reverse", "fill", "put", "resize", "itemset", "partition",
     "setflags", "byteswap", "zero_grad", "step", "train", "eval", "retain_grad",
     "popitem"}
)  # fmt: skip
_INPLACE_FUNCTIONS = re.compile(
    r"^(np|numpy)\.(copyto|put|place|putmask|fill_diagonal|random\.shuffle)$|"
    r"^(nn|torch\.nn)\.init\.\w+_$"
)


#: a runner's note, an operand's description and a sandbox refusal in a language: each is a
#: catalog Message (or words said as written), so each is :func:`~.catalog.text_in`
note_in = operand_in = refusal_in = text_in


class ProgramError(Exception):
    """A program failed, was refused or was stopped; it says why in plain words.

    Attributes: ``line`` (1-based line of the source passed to ``run``, None when the failure is
    not on a line, e.g. an unknown device), ``source_line`` (that line's text), ``kind`` (a
    stable code: ``"syntax"``, ``"refused"``, ``"stopped"``, ``"device"``, ``"busy"``, one of
    :mod:`~tensor_explorer.core.explain`'s kinds, or ``"error"``), ``error_type`` (e.g.
    ``"RuntimeError"``), ``torch_message`` (the original message), ``explanation`` (the usual
    cause in plain words, or None), ``operands`` (``[(name, "shape dtype device")]`` of the
    names on the failing line), ``notes`` (warnings raised on the way), and ``message`` (the
    whole multi-line text, also ``str(err)``).

    All of these are English. The learner's language: the runner's own words are catalog
    :class:`~tensor_explorer.core.catalog.Message` objects (``headline``, ``explanation``,
    ``notes`` and operand descriptions may be one; as a ``str`` each is its English), rendered
    in the language asked for; torch's own message stays as torch wrote it. :meth:`text`
    composes the whole message in a language, :meth:`headline_in` and :meth:`explanation_in`
    give the parts.
    """

    def __init__(
        self,
        headline: str,
        *,
        line: int | None = None,
        source_line: str | None = None,
        kind: str = "error",
        error_type: str | None = None,
        torch_message: str | None = None,
        explanation: str | None = None,
        operands: list[tuple[str, str]] | None = None,
        notes: tuple[str, ...] = (),
    ) -> None:
        self.headline = headline
        self.line = line
        self.source_line = source_line
        self.kind = kind
        self.error_type = error_type
        self.torch_message = torch_message
        self.explanation = explanation
        self.operands = list(operands or [])
        self.notes = tuple(notes)
        self.message = self._compose()
        super().__init__(self.message)

    @property
    def cancelled(self) -> bool:
        """True when the program was stopped (cancel, time or step limit)."""
        return self.kind == "stopped"

    def headline_in(self, lang: str) -> str:
        """The headline in ``lang`` ("en" or "zh"; the English where there is no translation)."""
        return str(self.headline) if lang == "en" else text_in(self.headline, lang)

    def explanation_in(self, lang: str) -> str | None:
        """The explanation in ``lang`` (None when there is none, in any language)."""
        if not self.explanation or lang == "en":
            return None if self.explanation is None else str(self.explanation)
        return text_in(self.explanation, lang)

    def text(self, lang: str = "en") -> str:
        """The whole multi-line message in ``lang``; ``text("en")`` is ``str(err)``."""
        parts = []
        if self.line is not None:
            parts.append(render("frame.line-text", lang, line=self.line, text=self.source_line)
                         if self.source_line else render("frame.line", lang, line=self.line))
        parts.append(self.headline_in(lang))
        explanation = self.explanation_in(lang)
        if explanation:
            parts.append(render("frame.cause", lang, text=explanation))
        if self.operands:
            parts.append(render("frame.values", lang))
            parts.extend(f"  {name}: {text_in(desc, lang)}" for name, desc in self.operands)
        parts.extend(render("frame.note", lang, text=text_in(note, lang)) for note in self.notes)
        return "\n".join(parts)

    def _compose(self) -> str:
        return self.text("en")


# ---------------------------------------------------------------------------------------------
# static analysis of a statement


@dataclass(frozen=True)
class Binding:
    """How a statement bound a name: the expression text, the callee, the active contexts."""

    call: str | None  # "torch.from_numpy(array)", "x @ w + b"; None for def/import/loops
    function: str | None  # "torch.from_numpy", "y.detach" when the value is a call
    contexts: tuple[str, ...]  # with-statement context texts around it, outermost first
    grad_mode: str | None  # "no_grad" | "inference_mode" | "enable_grad" | "set_grad_enabled"
    kind: str = "assign"  # "assign" | "def" | "import" | "for" | "with"


_GRAD_CONTEXT = re.compile(r"\b(no_grad|inference_mode|enable_grad|set_grad_enabled)\s*\(")


def _segment(lines: list[bytes], node: ast.AST) -> str | None:
    """The source text of ``node`` (like ``ast.get_source_segment``, on pre-split lines)."""
    try:
        first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
        start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
    except AttributeError:
        return None
    if last is None or end is None:
        return None
    if first == last:
        return lines[first][start:end].decode()
    parts = [lines[first][start:], *lines[first + 1 : last], lines[last][:end]]
    return b"".join(parts).decode()


class _Analysis(ast.NodeVisitor):
    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines
        self.bound: list[str] = []
        self.mutated: list[str] = []
        self.deleted: list[str] = []
        self.loaded: set[str] = set()
        self.bindings: dict[str, Binding] = {}
        self.functions: dict[str, frozenset[str]] = {}
        self.contexts: list[str] = []
        self.depth = 0
        self.may_mutate = False

    def text(self, node: ast.AST) -> str:
        return _segment(self.lines, node) or ast.unparse(node)

    def _grad_mode(self) -> str | None:
        mode = None
        for ctx in self.contexts:
            m = _GRAD_CONTEXT.search(ctx)
            if m:
                mode = m.group(1)
        return mode

    def bind(self, name: str, value: ast.AST | None, kind: str = "assign") -> None:
        if self.depth:
            return
        if name not in self.bound:
            self.bound.append(name)
        call = function = None
        if value is not None and kind in ("assign", "with"):
            call = self.text(value)
            if isinstance(value, ast.Call):
                function = self.text(value.func)
        self.bindings[name] = Binding(call, function, tuple(self.contexts), self._grad_mode(), kind)

    def mutate(self, name: str) -> None:
        if not self.depth and name not in self.mutated:
            self.mutated.append(name)

    def targets(self, target: ast.AST, value: ast.AST | None, kind: str = "assign") -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value, kind)
        elif isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                self.targets(elt, value, kind)
        elif isinstance(target, ast.Starred):
            self.targets(target.value, value, kind)
        elif isinstance(target, ast.Subscript | ast.Attribute):
            self.may_mutate = True
            base = _base_name(target)
            if base:
                self.mutate(base)

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self.targets(target, node.value)
        target = node.targets[0]
        if (
            isinstance(node.value, ast.Lambda)
            and len(node.targets) == 1
            and isinstance(target, ast.Name)
        ):
            self.functions[target.id] = _names_in(node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.targets(node.target, node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.may_mutate = True
        self.targets(node.target, node)
        base = _base_name(node.target)
        if base:
            self.mutate(base)
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.targets(node.target, node.value)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        self.targets(node.target, None, "for")
        self.generic_visit(node)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.targets(item.optional_vars, item.context_expr, "with")
        self.contexts.extend(self.text(item.context_expr) for item in node.items)
        for stmt in node.body:
            self.visit(stmt)
        del self.contexts[len(self.contexts) - len(node.items) :]

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.bind(node.name, None, "def")
        if not self.depth:
            self.functions[node.name] = _names_in(node)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bind(node.name, None, "class")
        if not self.depth:
            self.functions[node.name] = _names_in(node)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.bind(alias.asname or alias.name.split(".")[0], None, "import")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            self.bind(alias.asname or alias.name, None, "import")

    def visit_Delete(self, node: ast.Delete) -> None:
        self.may_mutate = True
        for target in node.targets:
            if isinstance(target, ast.Name):
                if not self.depth:
                    self.deleted.append(target.id)
            else:
                base = _base_name(target)
                if base:
                    self.mutate(base)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.may_mutate = True
        func = node.func
        if isinstance(func, ast.Attribute):
            base = _base_name(func.value)
            if base and (func.attr.endswith("_") or func.attr in _INPLACE_METHODS):
                self.mutate(base)
            if node.args and _INPLACE_FUNCTIONS.match(self.text(func)):
                first = _base_name(node.args[0])
                if first:
                    self.mutate(first)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loaded.add(node.id)


def _base_name(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _names_in(node: ast.AST) -> frozenset[str]:
    return frozenset(
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    )


def statement_header(node: ast.stmt) -> list[ast.AST]:
    """The parts of any statement that are on its first line(s), not in its body: what a
    failing line of it reads (the code bar's operands, and a script's at a frame)."""
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    if isinstance(node, ast.AsyncFunctionDef):
        return [*node.decorator_list, node.args]
    if isinstance(node, ast.AsyncFor):
        return [node.target, node.iter]
    if isinstance(node, ast.AsyncWith):
        return list(node.items)
    if isinstance(node, ast.Match):
        return [node.subject]
    return _header_nodes(node)


def _header_nodes(stmt: ast.stmt) -> list[ast.AST]:
    """The parts of a compound statement that are on its first line(s), not in its body."""
    if isinstance(stmt, ast.For):
        return [stmt.target, stmt.iter]
    if isinstance(stmt, ast.If | ast.While):
        return [stmt.test]
    if isinstance(stmt, ast.With):
        return list(stmt.items)
    if isinstance(stmt, ast.FunctionDef):
        return [*stmt.decorator_list, stmt.args]
    if isinstance(stmt, ast.Try):
        return []
    return [stmt]


def _ordered_names(nodes: list[ast.AST]) -> list[str]:
    found: dict[str, tuple[int, int]] = {}
    for root in nodes:
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and n.id not in found:
                found[n.id] = (n.lineno, n.col_offset)
    return sorted(found, key=found.__getitem__)


@dataclass
class Statement:
    """One top-level statement of a program, checked, rewritten and compiled."""

    line: int
    end_line: int
    source: str
    code: Any  # code object
    is_expression: bool
    bound: list[str]
    mutated: list[str]
    deleted: list[str]
    loaded: set[str]
    bindings: dict[str, Binding]
    functions: dict[str, frozenset[str]]
    may_mutate: bool


@dataclass
class Program:
    """A checked and compiled program: its statements and what is on each line."""

    source: str
    filename: str
    statements: list[Statement]
    lines: list[str]
    tree: ast.Module | None = None
    restricted: bool = True  # run under the restricted runner's policy
    _spans: list[tuple[int, int, list[str]]] | None = field(default=None, repr=False)

    def line_text(self, line: int | None) -> str | None:
        if line is None or not 1 <= line <= len(self.lines):
            return None
        return self.lines[line - 1].strip()

    def names_on(self, line: int) -> list[str]:
        """Names used by the innermost statement on ``line`` (only the header of a compound
        statement such as ``for``/``if``/``with``), in order of appearance."""
        if self._spans is None:
            self._spans = _spans(self.tree) if self.tree is not None else []
        best: tuple[int, int, list[str]] | None = None
        for span in self._spans:
            if not span[0] <= line <= span[1]:
                continue
            if best is None or span[1] - span[0] <= best[1] - best[0]:
                best = span
        return best[2] if best else []


def _spans(tree: ast.Module) -> list[tuple[int, int, list[str]]]:
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            header = _header_nodes(node)
            end = node.end_lineno or node.lineno
            if header != [node]:
                end = max([node.lineno] + [getattr(h, "end_lineno", None) or node.lineno
                                           for h in header])  # fmt: skip
            spans.append((node.lineno, end, _ordered_names(header)))
    return spans


def compile_program(source: str, *, restricted: bool = True) -> Program:
    """Parse, check and compile ``source``; raise :class:`ProgramError` if it is refused.

    ``restricted``: the restricted runner's policy applies (:mod:`.sandbox`: checked, then
    rewritten so that every attribute goes through the guard). Otherwise ``source`` is the
    user's own Python, compiled as it is but for the stop checks in loops and functions and
    the size check of ``**``, ``<<`` and ``*`` (a 10 ** 10 ** 10 would hold the interpreter,
    and so the window, for minutes).
    """
    filename = f"{_PROGRAM_PREFIX} {next(_serial)}" + (">" if restricted else TRUSTED_SUFFIX)
    lines = [line.rstrip("\r\n") for line in io.StringIO(source, newline="").readlines()]
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise _syntax(exc, lines) from None
    if restricted:
        try:
            sandbox.check(tree)
        except sandbox.Refused as exc:
            raise refused_error(exc.text, exc.line, lines) from None
    statements = []
    encoded = [line.encode() for line in io.StringIO(source, newline="").readlines()]
    for stmt in tree.body:
        info = _Analysis(encoded)
        info.visit(stmt)
        text = _segment(encoded, stmt) or ast.unparse(stmt)
        is_expr = isinstance(stmt, ast.Expr)
        module = ast.Module(body=[stmt], type_ignores=[])
        try:
            rewritten = sandbox.rewrite(module) if restricted else sandbox.rewrite_trusted(module)
        except sandbox.Refused as exc:
            raise refused_error(exc.text, exc.line, lines) from None
        try:
            if is_expr:
                expr = ast.Expression(body=rewritten.body[0].value)  # type: ignore[attr-defined]
                code = compile(expr, filename, "eval")
            else:
                code = compile(rewritten, filename, "exec")
        except SyntaxError as exc:  # 'return' outside function, and the like
            raise _syntax(exc, lines) from None
        statements.append(
            Statement(
                line=stmt.lineno,
                end_line=stmt.end_lineno or stmt.lineno,
                source=text,
                code=code,
                is_expression=is_expr,
                bound=info.bound,
                mutated=info.mutated,
                deleted=info.deleted,
                loaded=info.loaded,
                bindings=info.bindings,
                functions=info.functions,
                may_mutate=info.may_mutate,
            )
        )
    return Program(source, filename, statements, lines, tree, restricted)


def _syntax(exc: SyntaxError, lines: list[str]) -> ProgramError:
    line = exc.lineno
    return ProgramError(
        Message("error.syntax", detail=exc.msg),
        line=line,
        source_line=lines[line - 1].strip() if line and 1 <= line <= len(lines) else None,
        kind="syntax",
        error_type="SyntaxError",
        torch_message=exc.msg,
    )


def refused_error(
    text: Message, line: int | None, lines: list[str], notes: tuple[str, ...] = ()
) -> ProgramError:
    """The error for a refusal (``text``: :attr:`sandbox.Refused.text`)."""
    return ProgramError(
        Message("error.refused", reason=text),
        line=line,
        source_line=lines[line - 1].strip() if line and 1 <= line <= len(lines) else None,
        kind="refused",
        error_type="Refused",
        torch_message=text,
        explanation=Message("error.refused-why"),
        notes=notes,
    )


def stopped_error(
    reason: str, line: int | None, source_line: str | None, notes: tuple[str, ...]
) -> ProgramError:
    """The error for a program stopped by a limit or by cancel (``reason``:
    :attr:`sandbox.Stopped.reason`)."""
    return ProgramError(
        Message("error.stopped", reason=reason),
        line=line,
        source_line=source_line,
        kind="stopped",
        error_type="Stopped",
        torch_message=reason,
        notes=notes,
    )


def device_error(exc: ValueError) -> ProgramError:
    """The error for a device name :func:`~tensor_explorer.core.devices.check_device`
    refused (its ``args[0]`` a catalog Message: ``device.*``)."""
    reason = message_of(exc)
    code = "error.device" if isinstance(reason, Message) else "error.device-other"
    return ProgramError(
        Message(code, reason=reason),
        kind="device",
        error_type="ValueError",
        torch_message=str(exc),
    )


def busy_error() -> ProgramError:
    """The error for a run while another program runs in the same workspace."""
    return ProgramError(Message("error.busy"), kind="busy")


# ---------------------------------------------------------------------------------------------
# running


class Controller:
    """Stop flag, limits and captured output of the program that is running.

    ``tick()`` is injected into every loop body, function body, lambda and comprehension step;
    it raises :class:`~tensor_explorer.core.sandbox.Stopped` once :meth:`cancel` was called
    (from any thread) or a limit passed.
    """

    def __init__(self) -> None:
        self.active = False
        self._cancelled = False
        self.deadline: float | None = None
        self.time_limit: float | None = None
        self.max_steps: int | None = None
        self.steps = 0
        self.out = io.StringIO()
        self._size = 0
        self._expired: Message | None = None

    def start(self, time_limit: float | None, max_steps: int | None) -> None:
        self._cancelled = False
        self._expired = None
        self.steps = 0
        self.time_limit = time_limit
        self.deadline = time.monotonic() + time_limit if time_limit else None
        self.max_steps = max_steps
        self.out = io.StringIO()
        self._size = 0
        self.active = True

    def stop(self) -> None:
        self.active = False
        self._cancelled = False
        self._expired = None

    def cancel(self) -> None:
        if self.active:
            self._cancelled = True

    def check(self) -> None:
        """Raise :class:`~tensor_explorer.core.sandbox.Stopped` if the run must stop now."""
        if not self.active:
            return
        if self._cancelled:
            raise sandbox.Stopped(Message("stop.cancelled"))
        if self._expired is not None:
            raise sandbox.Stopped(self._expired)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise self._expire(Message("stop.time-limit", seconds=self.time_limit))

    def _expire(self, reason: Message) -> sandbox.Stopped:
        """A limit passed: from now on every check stops the run (a program that catches the
        first Stopped, as a bare ``except:`` in the user's own code does, meets it again)."""
        self._expired = reason
        return sandbox.Stopped(reason)

    def tick(self) -> bool:
        if not self.active:
            return True
        if self._cancelled:
            raise sandbox.Stopped(Message("stop.cancelled"))
        if self._expired is not None:
            raise sandbox.Stopped(self._expired)
        self.steps += 1
        if self.steps & 63 == 0:
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise self._expire(Message("stop.time-limit", seconds=self.time_limit))
            if self.max_steps is not None and self.steps > self.max_steps:
                raise self._expire(Message("stop.steps", steps=self.max_steps))
        return True

    def print(
        self, *args: Any, sep: str | None = " ", end: str | None = "\n", flush: bool = False
    ) -> None:
        """``print`` as programs see it: written to the captured output."""
        buf = io.StringIO()
        print(*args, sep=sep, end=end, file=buf)
        text = buf.getvalue()
        if self._size + len(text) > _MAX_OUTPUT:
            text = text[: max(0, _MAX_OUTPUT - self._size)] + "\n[output truncated]\n"
        self._size += len(text)
        self.out.write(text)
        self.tick()


@dataclass
class Outcome:
    """What one successful statement did."""

    bound: list[str]
    changed: list[str]
    deleted: list[str]
    output: str
    notes: list[str]
    result: str | None  # repr of an expression statement's value (None for None)
    value: Any = None
    added: list[str] = field(default_factory=list)  # the bound names that are new


def is_hidden(name: str, value: Any) -> bool:
    """Names a workspace does not list: internals, and modules (torch, np, the proxies the
    restricted runner binds, what the user imported)."""
    return (name.startswith("_") or isinstance(value, sandbox.ModuleProxy | types.ModuleType))


def _tensor_signature(t: torch.Tensor) -> tuple[Any, ...]:
    try:
        version: int | None = t._version
    except RuntimeError:  # inference tensors have no version counter
        version = None
    grad = None
    if t.is_leaf or t.retains_grad:
        grad = t.grad
    return (
        version,
        t.requires_grad,
        tuple(t.shape),
        None if grad is None else (id(grad), grad._version),
    )


def signature(value: Any) -> Any:
    """A cheap fingerprint that changes when ``value`` is changed in place (None: untracked)."""
    if isinstance(value, torch.Tensor):
        return _tensor_signature(value)
    if isinstance(value, np.ndarray):
        return (value.shape, value.strides, value.flags.writeable)
    if isinstance(value, torch.nn.Module):
        return (
            value.training,
            tuple(_tensor_signature(p) for p in value.parameters()),
            tuple(_tensor_signature(b) for b in value.buffers()),
        )
    if isinstance(value, list | dict | set):
        items = list(value.items()) if isinstance(value, dict) else list(value)
        return (
            len(items),
            tuple(
                map(
                    id,
                    itertools.chain.from_iterable(
                        pair if isinstance(pair, tuple) and isinstance(value, dict) else (pair,)
                        for pair in items[:64]
                    ),
                )
            ),
        )
    return None


def extent(value: Any) -> tuple[str, int, int] | None:
    """(device, first byte, end byte) of the memory a tensor's or array's elements occupy."""
    try:
        if isinstance(value, torch.Tensor):
            if value.layout != torch.strided or value.device.type == "meta" or not value.numel():
                return None
            size = value.element_size()
            start = value.data_ptr()
            hi = sum((n - 1) * s for n, s in zip(value.shape, value.stride(), strict=True))
            return (str(value.device), start, start + (hi + 1) * size)
        if isinstance(value, np.ndarray):
            if not value.size:
                return None
            start = value.__array_interface__["data"][0]
            lo = sum((n - 1) * s for n, s in zip(value.shape, value.strides, strict=True) if s < 0)
            hi = sum((n - 1) * s for n, s in zip(value.shape, value.strides, strict=True) if s > 0)
            return ("cpu", start + lo, start + hi + value.itemsize)
    except (RuntimeError, TypeError, ValueError):
        return None
    return None


def _shares_memory(a: tuple[str, int, int], b: tuple[str, int, int]) -> bool:
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


def describe_operand(value: Any) -> str | None:
    """``"(2, 3) float32 cpu"`` and the like, for the operand list of an error."""
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).removeprefix("torch.")
        text = f"tensor {tuple(value.shape)} {dtype} {value.device}"
        if value.requires_grad:
            text += " requires_grad"
        return text
    if isinstance(value, np.ndarray):
        return f"ndarray {value.shape} {value.dtype} cpu"
    if isinstance(value, torch.nn.Module):
        params = list(value.parameters())
        kinds = sorted({f"{str(p.dtype).removeprefix('torch.')} {p.device}" for p in params})
        if not kinds:
            return Message("operand.module-empty", cls=type(value).__name__)
        return Message("operand.module", cls=type(value).__name__, where=tuple(kinds))
    if isinstance(value, bool | int | float | complex | str):
        text = repr(value)
        return f"{type(value).__name__} {text if len(text) < 40 else text[:37] + '...'}"
    if isinstance(value, list | tuple | dict):
        return Message("operand.container", kind=type(value).__name__, count=len(value))
    if isinstance(value, torch.device | torch.dtype):
        return f"{type(value).__name__.removeprefix('torch.')} {value}"
    return None


@dataclass
class _Saved:
    """A tensor or array saved before a statement that may change it, to write back if the
    statement fails."""

    name: str
    value: Any  # the object itself
    version: int | None  # a tensor's version counter then (None: an array, or unreadable)
    layout: Any  # :func:`_layout` then
    copy: Any  # its values then


def _layout(value: Any) -> Any:
    """Shape, strides, type and memory of a tensor or array: what a write-back needs unchanged
    (None when it cannot be read; a later None compares equal)."""
    try:
        if isinstance(value, torch.Tensor):
            storage = value.untyped_storage()
            return (tuple(value.shape), value.stride(), value.storage_offset(), value.dtype,
                    storage.data_ptr(), storage.nbytes())
        return (value.shape, value.strides, value.dtype, value.__array_interface__["data"][0])
    except (RuntimeError, NotImplementedError):
        return None


def _failed_note(names: list[str]) -> Message:
    return Message("note.not-restored", names=tuple(names))


class Runner:
    """Runs compiled statements in one namespace (the one a workspace owns).

    Rollback of a failing statement: the namespace is restored exactly; tensors and arrays named
    in the statement (or used by functions it calls), up to 16 MiB each and 64 MiB in all, are
    saved before a statement that can change things and written back when it fails (a written
    back tensor's version counter still goes up). Larger values are not restored, nor are
    values the statement resized, reshaped or made read-only; the error names them.
    """

    def __init__(self, namespace: dict[str, Any], controller: Controller) -> None:
        self.ns = namespace
        self.ctrl = controller
        self.functions: dict[str, frozenset[str]] = {}
        self._sigs: dict[str, Any] | None = None

    # -- helpers -------------------------------------------------------------------------------

    def user_items(self) -> Iterator[tuple[str, Any]]:
        for name, value in self.ns.items():
            if not is_hidden(name, value):
                yield name, value

    def signatures(self) -> dict[str, Any]:
        return {name: signature(value) for name, value in self.user_items()}

    def invalidate(self) -> None:
        """Forget cached fingerprints (values may have changed outside the runner)."""
        self._sigs = None

    def _reach(self, names: set[str]) -> set[str]:
        seen = set(names)
        todo = list(names)
        while todo:
            for used in self.functions.get(todo.pop(), ()):
                if used not in seen:
                    seen.add(used)
                    todo.append(used)
        return seen

    def _snapshot(self, stmt: Statement) -> tuple[list[_Saved], list[str]]:
        saved: list[_Saved] = []
        skipped: list[str] = []
        if not stmt.may_mutate:
            return saved, skipped
        total = 0
        for name in sorted(self._reach(stmt.loaded | set(stmt.mutated))):
            value = self.ns.get(name)
            try:
                if isinstance(value, torch.Tensor) and value.layout == torch.strided:
                    if value.device.type == "meta":
                        continue
                    nbytes = value.numel() * value.element_size()
                    if nbytes > _SNAPSHOT_ONE or total + nbytes > _SNAPSHOT_ALL:
                        skipped.append(name)
                        continue
                    try:
                        version = value._version
                    except RuntimeError:
                        version = None
                    saved.append(_Saved(name, value, version, _layout(value),
                                        value.detach().clone()))
                    total += nbytes
                elif isinstance(value, np.ndarray) and value.dtype != object:
                    if value.nbytes > _SNAPSHOT_ONE or total + value.nbytes > _SNAPSHOT_ALL:
                        skipped.append(name)
                        continue
                    saved.append(_Saved(name, value, None, _layout(value), value.copy()))
                    total += value.nbytes
            except RuntimeError:
                continue
        return saved, skipped

    @staticmethod
    def _restore(saved: list[_Saved]) -> list[str]:
        """Write the saved values back; returns the names of those that could not be (their
        shape or memory was changed, they were made read-only, or the copy failed)."""
        failed: list[str] = []
        for item in saved:
            value, copy = item.value, item.copy
            try:
                if _layout(value) != item.layout:
                    # resized, reshaped or moved to other memory: a copy would broadcast into
                    # the new shape or write into memory that is not the value's own
                    failed.append(item.name)
                elif isinstance(value, torch.Tensor):
                    try:
                        now = value._version
                    except RuntimeError:
                        now = None
                    if item.version is not None and now == item.version:
                        continue
                    if value.is_inference():
                        with torch.inference_mode():
                            value.copy_(copy)
                    else:
                        with torch.no_grad():
                            value.copy_(copy)
                elif value.tobytes() != copy.tobytes():
                    if value.flags.writeable:
                        np.copyto(value, copy)
                    else:
                        failed.append(item.name)
            except (RuntimeError, ValueError, TypeError):
                failed.append(item.name)
        return failed

    # -- running -------------------------------------------------------------------------------

    def run_statement(self, program: Program, stmt: Statement, device: str | None) -> Outcome:
        """Run one statement; on failure restore and raise :class:`ProgramError`."""
        if self._sigs is None:
            self._sigs = self.signatures()
        before = dict(self.ns)
        saved, skipped = self._snapshot(stmt)
        out_start = self.ctrl.out.tell()
        value = None
        shown: str | None = None
        device_ctx = torch.device(device) if device else contextlib.nullcontext()
        sandbox.take_refusals()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with device_ctx:
                    if stmt.is_expression:
                        value = eval(stmt.code, self.ns)
                        # the value as text, now: its __repr__ may be the program's own, and
                        # is held to the same policy and limits as the rest of it
                        shown = (None if value is None or any(
                            v is value for _, v in self.user_items()) else repr(value))
                    else:
                        exec(stmt.code, self.ns)
                # a refusal or stop the program swallowed still ends it
                refusals = sandbox.take_refusals()
                if refusals:
                    raise sandbox.Refused(refusals[0])
                self.ctrl.check()
            except BaseException as exc:
                notes = _notes(caught)
                error = self._error(program, stmt, exc, notes)
                self.ns.clear()
                self.ns.update(before)
                failed = self._restore(saved)
                self._sigs = None
                if error is None:
                    raise
                not_restored = [n for n in skipped if n in stmt.mutated]
                if not_restored:
                    error.notes += (Message("note.too-large", names=tuple(not_restored)),)
                if failed:
                    error.notes += (_failed_note(failed),)
                if not_restored or failed:
                    error.message = error._compose()
                    error.args = (error.message,)
                raise error from None
            notes = _notes(caught)
        output = self.ctrl.out.getvalue()[out_start:]
        if stmt.functions:
            self.functions.update(stmt.functions)
        try:
            bound, changed, deleted = self._diff(before, stmt)
        except Exception as exc:  # a value whose facts cannot be read (a broken object)
            self.ns.clear()
            self.ns.update(before)
            failed = self._restore(saved)
            self._sigs = None
            raise ProgramError(
                f"{type(exc).__name__}: {exc}", line=stmt.line, source_line=stmt.source,
                kind="error", error_type=type(exc).__name__,
                explanation=Message("error.uninspectable-why"),
                notes=(_failed_note(failed),) if failed else ()) from None
        result = None
        if stmt.is_expression and value is not None:
            same = next((n for n, v in self.user_items() if v is value), None)
            result = same if same is not None else _clip(shown or "")
        added = [n for n in bound if n not in before]
        return Outcome(bound, changed, deleted, output, notes, result, value, added)

    def _diff(
        self, before: Mapping[str, Any], stmt: Statement
    ) -> tuple[list[str], list[str], list[str]]:
        old_sigs = self._sigs or {}
        new_sigs: dict[str, Any] = {}
        rebound: set[str] = set()
        same: list[str] = []
        for name, value in self.user_items():
            new_sigs[name] = signature(value)
            if name not in before or before[name] is not value:
                rebound.add(name)
            else:
                same.append(name)
        deleted = [n for n, v in before.items() if n not in self.ns and not is_hidden(n, v)]
        order = {name: i for i, name in enumerate(stmt.bound)}
        bound = sorted(rebound, key=lambda n: order.get(n, len(order)))
        changed_set = {
            n
            for n in same
            if n in stmt.mutated or (new_sigs[n] is not None and new_sigs[n] != old_sigs.get(n))
        }
        if changed_set:
            extents = [e for e in (extent(self.ns[n]) for n in changed_set) if e]
            if extents:
                for name in same:
                    if name in changed_set:
                        continue
                    mine = extent(self.ns[name])
                    if mine and any(_shares_memory(mine, e) for e in extents):
                        changed_set.add(name)
        mutated_order = {name: i for i, name in enumerate(stmt.mutated)}
        changed = sorted(
            changed_set, key=lambda n: (mutated_order.get(n, len(mutated_order)), same.index(n))
        )
        self._sigs = new_sigs
        return bound, changed, deleted

    def _error(
        self, program: Program, stmt: Statement, exc: BaseException, notes: list[str]
    ) -> ProgramError | None:
        if not isinstance(exc, Exception | sandbox.Refused | sandbox.Stopped):
            return None  # KeyboardInterrupt, SystemExit: not the program's business
        line, frame_locals, inner = _failing_frame(exc, program.filename)
        if line is None:
            line = stmt.line
        values = self._operands(program, stmt, line, frame_locals)
        operands = [(n, d) for n, v in values.items() if (d := describe_operand(v)) is not None]
        source_line = program.line_text(line)
        extra = tuple(notes)
        if inner:
            extra += (Message("note.inside", function=inner),)
        if isinstance(exc, sandbox.Stopped):
            return stopped_error(exc.reason, line, source_line, extra)
        if isinstance(exc, sandbox.Refused):
            return refused_error(exc.text, line, program.lines, extra)
        try:
            why = explain(exc, values)  # (it reads str(exc): a program's own __str__)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:
            why = None
        name = type(exc).__name__
        said = _safe_text(lambda: str(exc), f"<{name} that cannot be printed>")
        refusals = sandbox.take_refusals()  # the exception's own __str__ was refused
        if refusals:
            return refused_error(refusals[0], line, program.lines, extra)
        return ProgramError(
            f"{name}: {said}",
            line=line,
            source_line=source_line,
            kind=why.kind if why else "error",
            error_type=name,
            torch_message=said,
            explanation=why.text if why else None,
            operands=operands,
            notes=extra,
        )

    def _operands(
        self,
        program: Program,
        stmt: Statement,
        line: int,
        frame_locals: Mapping[str, Any] | None,
    ) -> dict[str, Any]:
        """The values the failing ``line`` reads, by name in order of appearance, as they are
        when the error happened (``frame_locals`` first when the line is in a function).

        Only names the line reads (loads) count: a name the line only assigns (``y = a @ b``
        after an earlier run bound ``y``) still holds its old value, which has nothing to do
        with the error; ``y = y @ w`` and ``y += 1`` read ``y``. Names bound by a comprehension
        or a lambda on the line are looked up only among ``frame_locals`` (the namespace's
        value of that name is another variable). Of several statements on the line, those of
        the statement that failed."""

        parts: list[ast.AST] = []
        try:
            tree: ast.Module | None = ast.parse(program.source)
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None:
            roots: list[ast.stmt] = list(tree.body)
            index = next((i for i, s in enumerate(program.statements) if s is stmt), None)
            same = len(tree.body) == len(program.statements)
            if index is not None and same and stmt.line <= line <= stmt.end_line:
                roots = [tree.body[index]]  # the statement that failed, not its neighbours
            found: list[tuple[int, list[ast.AST]]] = []
            for root in roots:
                for node in ast.walk(root):
                    if not isinstance(node, ast.stmt):
                        continue
                    nodes = statement_header(node)
                    last = node.end_lineno or node.lineno
                    if nodes != [node]:
                        last = max([node.lineno] + [getattr(h, "end_lineno", None) or node.lineno
                                                    for h in nodes])  # fmt: skip
                    if node.lineno <= line <= last:
                        found.append((last - node.lineno, nodes))
            if found:
                size = min(span for span, _n in found)
                parts = [n for span, nodes in found if span == size for n in nodes]
        reads: dict[str, tuple[int, int]] = {}
        local: set[str] = set()
        for part in parts:
            for n in ast.walk(part):
                if isinstance(n, ast.comprehension):
                    local.update(t.id for t in ast.walk(n.target) if isinstance(t, ast.Name))
                elif isinstance(n, ast.Lambda):
                    a = n.args
                    args = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                    local.update(x.arg for x in args if x is not None)
                elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                    reads.setdefault(n.target.id, (n.target.lineno, n.target.col_offset))
                elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    reads.setdefault(n.id, (n.lineno, n.col_offset))
        names = sorted(reads, key=reads.__getitem__)
        if tree is None:  # not expected: the program was parsed before it ran
            names = program.names_on(line)
        out: dict[str, Any] = {}
        for name in names:
            if frame_locals is not None and name in frame_locals:
                value = frame_locals[name]
            elif name in self.ns and name not in local:
                value = self.ns[name]
            else:
                continue
            if isinstance(value, sandbox.ModuleProxy):
                continue
            out[name] = value
        return out


def _failing_frame(
    exc: BaseException, filename: str
) -> tuple[int | None, Mapping[str, Any] | None, str | None]:
    """Line and locals of the innermost frame of this program, and an inner function's name."""
    line = None
    frame_locals = None
    inner = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename:
            line = tb.tb_lineno
            frame_locals = tb.tb_frame.f_locals if code.co_name != "<module>" else None
            inner = None
        elif code.co_filename.startswith(_PROGRAM_PREFIX) and code.co_name != "<module>":
            inner = f"{code.co_name}()"
        tb = tb.tb_next
    return line, frame_locals, inner


def _notes(caught: list[warnings.WarningMessage]) -> list[str]:
    """The warnings a statement raised, as notes: torch's own words, with our plain words (in
    both languages: a ``note.warning`` Message) when we have some."""
    notes: list[str] = []
    for w in caught:
        text = f"{w.category.__name__}: {w.message}"
        plain = explain_warning(str(w.message))
        if plain:
            text = Message("note.warning", category=w.category.__name__, message=str(w.message),
                           plain=plain)
        if text not in notes:
            notes.append(text)
    return notes


def _safe_text(make: Any, fallback: str) -> str:
    """``make()`` (a ``repr`` or ``str`` that may run a program's own ``__repr__``/``__str__``),
    or ``fallback`` when that fails, is refused or is stopped."""
    try:
        text = make()
        return text if isinstance(text, str) else fallback
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # Refused and Stopped are BaseExceptions; none may escape here
        return fallback


def _clip(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
