"""The restricted runner's security policy: what a lesson or a ``.py`` program may touch.

Lessons and programs from files that are not trusted come from strangers, so they run through
this module, never through plain ``exec`` (the user's own code runs as full Python:
:func:`rewrite_trusted`). The policy, in the words the README uses:

1. **Checked before anything runs.** The whole program is parsed and checked first; one refused
   construct refuses the program and nothing of it runs.
2. **No imports** except ``torch``, ``numpy``, ``math`` and these parts of torch and NumPy:
   ``torch.nn``, ``torch.nn.functional``, ``torch.nn.init``, ``torch.optim``, ``torch.linalg``,
   ``torch.fft``, ``torch.autograd``, ``torch.utils.data``, ``numpy.random``, ``numpy.linalg``.
   They bind the same restricted modules as the pre-bound names ``torch``, ``np``, ``nn``, ``F``.
3. **Underscores.** Variable, function, class, argument and ``except ... as`` names may start
   with one underscore (``for _ in range(3)``, ``values, _ = t.sort()``, ``_tmp = 1``); names
   that start with two (``__x``, ``__builtins__``) are refused everywhere. Attributes, keyword
   arguments of calls and ``from ... import`` names may not start with ``_`` at all, with
   exactly these exceptions (:data:`READABLE_DUNDERS`), all read-only:

   * ``__name__`` and ``__qualname__`` of anything whose value is a ``str`` (classes, functions,
     methods, module proxies: ``type(x).__name__``, ``f.__qualname__``; ``x.__class__`` stays
     refused, so write ``type(x).__name__``);
   * ``__version__`` of the ``torch`` and ``numpy`` proxies (``torch.__version__``,
     ``np.__version__``, ``numpy.__version__`` after ``import numpy``);
   * the :data:`SPECIAL_METHODS` (``__init__``, ``__getitem__``, ``__repr__``...) of a
     ``super(...)`` call, written as such (``super().__init__(...)``,
     ``super(Net, self).__init__()``, ``super().__getitem__(i)``); on any other object they
     are refused.
4. **Classes** as learners write them. A ``class`` statement may have no bases or bases from
   :func:`allowed_bases`: ``torch.nn.Module`` and the ``nn`` module classes (``nn.Linear``,
   ``nn.Sequential``...), ``torch.utils.data.Dataset`` and the datasets of
   ``torch.utils.data`` (``TensorDataset``, ``Subset``, ``ConcatDataset``), the exception
   classes among the builtins (``Exception``, ``ValueError``...), and classes made by
   restricted programs. Refused: any other base (``torch.Tensor``, ``type``, ``object`` is not
   a builtin here), class keywords (``metaclass=``), class decorators, type parameters,
   class attributes that start with ``_``, and special methods other than
   :data:`SPECIAL_METHODS` (``__init__``, ``__call__``, ``__len__``, ``__getitem__``,
   ``__setitem__``, ``__iter__``, ``__next__``, ``__contains__``, ``__repr__``, ``__str__``),
   which may be defined only in a class body. A subclass of a library class may redefine only
   ``forward``, ``extra_repr``, ``reset_parameters`` and those special methods of it (not
   ``parameters``, ``state_dict``, ``train``, ``to``... which torch and this app rely on).
   ``super()`` works directly inside a method; ``super(Class, obj)`` only with a class made
   by a restricted program and an instance of it (so no check of a library class, e.g.
   DataLoader's, can be skipped). Attributes of instances of such classes may be set
   (``self.fc = nn.Linear(2, 3)``); class attributes cannot be changed from outside the
   class body.
5. **No ``global``, ``nonlocal``, ``yield``, ``async``, ``match``, ``except*``.**
   Functions (``def``, ``lambda``), loops, comprehensions, ``try``, ``with``, f-strings are fine.
6. **A small set of builtins**: no ``open``, ``eval``, ``exec``, ``compile``, ``getattr``,
   ``setattr``, ``globals``, ``vars``, ``dir``, ``__import__``, ``input``, ``breakpoint``,
   ``object``, ``help``, ``exit``, ``classmethod``, ``staticmethod``, ``property``;
   ``type(x)`` has its one-argument form only and refuses classes (their type is a metaclass,
   which makes classes); ``super`` and ``__build_class__`` (what a ``class`` statement calls)
   are the checked versions above; ``print`` is captured.
7. **Every attribute read and write goes through a guard** at run time. Modules are
   *allowlists*: ``torch``, ``np``, ``nn``, ``F`` and their allowed submodules are proxies that
   expose only the names listed for them (torch's tensor-creation and math functions, dtypes,
   ``no_grad``...); any other module object, reached any way, is refused. The guard also refuses,
   on any object, the file/process/serialization/native entry points (``save``, ``load``,
   ``from_file``, ``fromfile``, ``tofile``, ``dump``, ``dumps``, ``memmap``, ``ctypes``, ``cffi``,
   ``share_memory_``, ``compile``, ``load_library``, ``set_`` ...), frame and generator internals
   (``gi_frame``, ``f_globals``, ``tb_frame``, ``mro``, ``with_traceback``...), and attribute
   writes on modules and classes. Tensors (``torch.Tensor``, ``nn.Parameter``...), arrays
   (``np.ndarray``, ``np.matrix``, ``np.recarray``), NumPy scalars and storages are
   *allowlists* too: a program may use only the methods and attributes listed in
   :mod:`~tensor_explorer.core.sandbox_allowlist`, each reviewed for memory safety, by any route
   (``x.m``, ``type(x).m``, ``torch.Tensor.m``, ``torch.FloatTensor.m``, ``np.ndarray.m``,
   ``hasattr``, format strings). A name a newer torch or NumPy adds is refused until reviewed.
8. **Format strings** (``str.format``/``format_map``) resolve their ``{0.attr}`` fields through
   the same guard, so ``"{0.__class__}".format(x)`` is refused and ``"{:.3f}".format(x)`` works.
9. **Nothing a program does can corrupt memory** (crash the app, or read or write memory it
   does not own). Refused: ``np.ndarray``/``np.recarray`` with a buffer; sparse constructors
   (which skip index checks); what changes the size or the owner of memory under live views
   (``Tensor.resize_``/``resize_as_``/``resize``/``set_``, ``torch.resize_as_``, storage
   ``resize_``, ``ndarray.resize``, ``sparse_resize_``, ``share_memory_``); what hands out raw
   memory or the flags that guard it (``ndarray.data``: a memoryview, ``ctypes``, ``setflags``,
   ``a.flags.writeable = ...``, storage ``from_buffer``/``copy_``/``fill_``); ``to_mkldnn``;
   ``out=`` into a tensor over NumPy memory (torch would give it a shape its memory cannot
   hold). The index tensors of sparse tensors (``indices()``, ``crow_indices()``,
   ``col_indices()``, ``ccol_indices()``, ``row_indices()``) are copies: writing to them
   cannot reach the kernels that trust them. ``as_strided`` stays: torch checks it against the
   storage. ``tests/core/test_crash_fuzz.py`` (and ``bench/fuzz_restricted.py``) run random
   programs of the allowed methods in child processes and fail on any crash.
10. **Refusals cannot be caught** by the program (they are not ``Exception`` subclasses), and a
    bare ``except:`` means ``except Exception:``. A refusal ends the program with a
    :class:`~tensor_explorer.core.runner.ProgramError` whose kind is ``"refused"``; every
    refusal message ends with :data:`TRUST_HINT` (what to do about it).
11. **Stoppable**: every loop body, function body, lambda and comprehension step checks a stop
    flag, so ``Workspace.cancel()`` or a time limit stops a runaway program. A single long call
    into C (one enormous tensor op, ``10**10**8``) cannot be interrupted.
12. **Impossible requests are refused up front**: the tensor and array factories (``torch.zeros``,
    ``ones``, ``empty``, ``full``, ``rand``, ``randn``, ``randint``, ``randperm``, ``arange``,
    ``linspace``, ``logspace``, ``eye``, ``empty_strided``; ``np.zeros``/``ones``/``empty``/
    ``full``/``arange``/``linspace``/``eye``, ``np.random.rand``/``randn``/``random``/``uniform``/
    ``normal``/``randint``) compute the bytes asked for and raise ``MemoryError`` with a plain
    message, before allocating, when that is more than 80% of the memory available now. So are
    Python integers that would freeze the app (``**``, ``<<`` and ``pow`` beyond 4M bits) and
    repeating a sequence beyond 50M items (``"x" * 10**9``). Other memory use (``x.repeat``,
    results of operations) is not limited beyond what the allocator refuses: run untrusted
    programs with a time limit and expect them to be able to use RAM.

Functions, methods and classes a restricted program makes keep the restricted builtins and the
guard when they are called later, by anyone (CPython binds a function's builtins when it is
made): a method of such a class run by the app (``repr`` of an instance) is restricted code.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import inspect
import math
import string
import threading
import types
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import torch

from . import sandbox_allowlist as allowlist
from .catalog import Message
from .sysmem import available_memory

PROGRAM_FILENAME = "<program>"

# ---------------------------------------------------------------------------------------------
# refusals


class Refused(BaseException):
    """Raised when a program reaches for something the policy does not allow.

    Derives from ``BaseException`` so that ``except Exception`` in the program cannot swallow it.
    ``text`` is the refusal as a catalog :class:`~tensor_explorer.core.catalog.Message`
    (``refused.advised``: the reason and :data:`TRUST_HINT`), to render in the learner's
    language; ``message`` (also ``str(exc)``) is its English.
    """

    def __init__(self, text: Message, line: int | None = None) -> None:
        text = advised(text)
        super().__init__(text)
        self.text = text
        self.message = str(text)
        self.line = line


_state = threading.local()
_MISSING = object()

#: the end of every refusal message (in English): what the person running the program can do
TRUST_HINT = str(Message("refused.advised", reason=""))


def advised(reason: Message) -> Message:
    """``reason`` (a ``refused.*`` message) with :data:`TRUST_HINT` at its end (once)."""
    if not isinstance(reason, Message):
        raise TypeError(f"a refusal is a catalog Message, not {type(reason).__name__}")
    if reason.code == "refused.advised":
        return reason
    return Message("refused.advised", reason=reason)


def refuse(reason: str | Message, /, **params: Any) -> Refused:
    """A :class:`Refused` for a run-time refusal, remembered for this thread.

    ``reason``: a code of the catalog (``"refused.import"``) with its ``params``, or a
    :class:`~tensor_explorer.core.catalog.Message` made already (:func:`attr_refusal`'s).
    The runner checks the memory after each statement, so a refusal counts even when the
    program manages to swallow the exception (e.g. ``except BaseException`` failing with a
    ``NameError`` that an outer ``except Exception`` catches). The message gets
    :data:`TRUST_HINT` at its end.
    """
    exc = Refused(_reason(reason, params))
    refusals = getattr(_state, "refusals", None)
    if refusals is None:
        refusals = _state.refusals = []
    refusals.append(exc.text)
    return exc


def take_refusals() -> list[Message]:
    """The run-time refusals of this thread since the last call (and forget them); each is a
    catalog :class:`~tensor_explorer.core.catalog.Message`, as a ``str`` its English."""
    refusals = getattr(_state, "refusals", None) or []
    _state.refusals = []
    return refusals


class Stopped(BaseException):
    """Raised inside a running program when it is cancelled or runs out of time or steps."""

    def __init__(self, reason: Message) -> None:
        super().__init__(reason)
        self.reason = reason  # a ``stop.*`` catalog Message (as a str, its English)


# ---------------------------------------------------------------------------------------------
# attribute policy

#: attribute names refused on every object
DENIED_ATTRS: frozenset[str] = frozenset(
    {
        # files, serialization, shared memory, native code
        "save", "load", "loads", "dump", "dumps", "tofile", "fromfile", "from_file", "memmap",
        "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromregex",
        "DataSource", "ctypes", "cffi", "ctypeslib", "share_memory_", "share_memory",
        "load_library", "compile", "export", "script", "trace_module", "hub", "jit",
        "from_dlpack", "to_dlpack", "filename",
        # memory-unsafe in-place re-pointing
        "set_",
        # introspection that leads out of the sandbox
        "mro", "with_traceback", "tb_frame", "tb_next", "f_globals", "f_locals", "f_builtins",
        "f_back", "f_code", "func_globals", "func_code", "gi_frame", "gi_code", "cr_frame",
        "cr_code", "ag_frame", "ag_code",
        # the functions inside a property: library getters that read or write attributes by
        # name (nn.RNNBase.all_weights.fget is getattr(self, n) over self._all_weights)
        "fget", "fset", "fdel", "getter", "setter", "deleter",
    }
)  # fmt: skip

#: attribute prefixes refused on every object (frames, code, generators, tracebacks)
DENIED_PREFIXES: tuple[str, ...] = ("_", "gi_", "cr_", "ag_", "f_", "tb_", "co_", "func_", "im_")

#: the only attributes a storage object (``x.untyped_storage()``) exposes (read-only facts and
#: copies: :data:`~tensor_explorer.core.sandbox_allowlist.STORAGE_ALLOWED`)
STORAGE_ATTRS: frozenset[str] = allowlist.STORAGE_ALLOWED

#: the only attributes starting with ``_`` a program may name: read-only facts. ``__name__`` and
#: ``__qualname__`` are answered when their value is a ``str``; ``__version__`` by the torch and
#: numpy proxies only. (The SPECIAL_METHODS are readable on a ``super(...)`` object only,
#: written as ``super(...).__init__``.)
READABLE_DUNDERS: frozenset[str] = frozenset({"__name__", "__qualname__", "__version__"})
#: the module proxies that answer ``__version__``
VERSIONED_MODULES: frozenset[str] = frozenset({"torch", "numpy"})
#: the special methods a class of a program may define (in its body, nowhere else)
SPECIAL_METHODS: tuple[str, ...] = (
    "__init__", "__call__", "__len__", "__getitem__", "__setitem__", "__iter__", "__next__",
    "__contains__", "__repr__", "__str__",
)  # fmt: skip
#: what a class of a program may redefine of a library base class, besides SPECIAL_METHODS
OVERRIDABLE: frozenset[str] = frozenset({"forward", "extra_repr", "reset_parameters"})

_FRAMELIKE = (types.FrameType, types.TracebackType, types.CodeType)
_STORAGES = (torch.UntypedStorage, torch.TypedStorage)
#: the metaclass of torch's legacy tensor types (``torch.FloatTensor``...): classes that are not
#: subclasses of ``torch.Tensor`` but hand out its methods
_TENSORTYPE = type(torch.FloatTensor)
#: how a refusal names the owner of a method, per kind of value (sandbox_allowlist.TABLES)
_KIND_OWNER = {"tensor": "torch.Tensor", "ndarray": "np.ndarray", "generic": "np.generic",
               "storage": "storage"}  # fmt: skip


def memory_kind(obj: Any) -> str | None:
    """Which allowlist of :mod:`~tensor_explorer.core.sandbox_allowlist` governs the attributes
    of ``obj`` (a value or a class): ``"tensor"``, ``"ndarray"``, ``"generic"`` (NumPy
    scalars), ``"storage"``, or None (not one of those)."""
    if isinstance(obj, GuardedClass):
        obj = obj._tx_cls
    cls = obj if isinstance(obj, type) else type(obj)  # a value answers as its class does
    if isinstance(cls, _TENSORTYPE) or issubclass(cls, torch.Tensor):
        return "tensor"
    for kind, base in (("ndarray", np.ndarray), ("generic", np.generic), ("storage", _STORAGES)):
        if issubclass(cls, base):
            return kind
    return None


def memory_refusal(obj: Any, name: str) -> Message | None:
    """Why ``obj.name`` is refused by the memory-safety allowlists, or None when it may be read
    (allowed, not an attribute of a tensor/array/scalar/storage, or an attribute the program
    set itself). A name the class does not have at all is not refused: reading it raises the
    usual ``AttributeError``."""
    kind = memory_kind(obj)
    if kind is None:
        return None
    allowed, refused = allowlist.TABLES[kind]
    if name in allowed:
        return None
    is_class = isinstance(obj, type | GuardedClass)
    cls = obj._tx_cls if isinstance(obj, GuardedClass) else obj if is_class else type(obj)
    if inspect.getattr_static(cls, name, _MISSING) is _MISSING:
        return None  # no such attribute (or an instance's own: x.note = 1 ... x.note)
    if kind == "generic" and any(name in vars(base) for base in cls.__mro__
                                 if base.__module__ == "builtins" and base is not object):
        return None  # np.float64 is a float: float.hex, float.fromhex...
    code = refused.get(name, allowlist.UNREVIEWED)
    return Message(code, owner=_KIND_OWNER[kind], name=name)


def attr_refusal(name: str) -> Message | None:
    """Why the attribute ``name`` is refused on every object, or None when it may be used."""
    if name.startswith(DENIED_PREFIXES):
        if name.startswith("_"):
            return Message("refused.underscore", name=name)
        return Message("refused.internals", name=name)
    if name in DENIED_ATTRS:
        return Message("refused.denied-attr", name=name)
    return None


class ModuleProxy:
    """A read-only view of a module that exposes an allowlist of its names."""

    __slots__ = ("_tx_members", "_tx_name")

    def __init__(self, name: str, members: dict[str, Any]) -> None:
        object.__setattr__(self, "_tx_name", name)
        object.__setattr__(self, "_tx_members", members)

    def _tx_get(self, name: str) -> Any:
        try:
            value = self._tx_members[name]
        except KeyError:
            raise refuse("refused.member", owner=self._tx_name, name=name) from None
        if isinstance(value, _Sub):
            return module_proxy(value.module)
        return value

    def __getattr__(self, name: str) -> Any:  # host code only (programs go through the guard)
        value = self._tx_members.get(name, _MISSING)
        if value is _MISSING:
            raise AttributeError(f"{self._tx_name}.{name} is not available")
        return module_proxy(value.module) if isinstance(value, _Sub) else value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._tx_name} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self._tx_name} is read-only")

    def __dir__(self) -> list[str]:
        return sorted(self._tx_members)

    def __repr__(self) -> str:
        return f"<module {self._tx_name!r} (restricted)>"

    @property
    def real(self) -> Any:
        """The module itself (host code only: what a trusted run sees in place of the proxy)."""
        import importlib

        try:
            return importlib.import_module(self._tx_name)
        except ImportError:
            return None


class _Sub:
    """Member marker: a submodule, resolved to its proxy on access."""

    __slots__ = ("module",)

    def __init__(self, module: str) -> None:
        self.module = module


class GuardedClass:
    """Stands for a class whose constructor must be checked (``np.ndarray``, ``np.recarray``).

    ``isinstance``/``issubclass`` work as with the real class; attributes go through the guard.
    """

    __slots__ = ("_tx_check", "_tx_cls")

    def __init__(self, cls: type, check: Callable[[tuple[Any, ...], dict[str, Any]], None]) -> None:
        object.__setattr__(self, "_tx_cls", cls)
        object.__setattr__(self, "_tx_check", check)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._tx_check(args, kwargs)
        return self._tx_cls(*args, **kwargs)

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, self._tx_cls)

    def __subclasscheck__(self, cls: Any) -> bool:
        if isinstance(cls, GuardedClass):
            cls = cls._tx_cls
        return issubclass(cls, self._tx_cls)

    def __getattr__(self, name: str) -> Any:
        if attr_refusal(name):
            raise AttributeError(name)
        return getattr(self._tx_cls, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("read-only")

    def __repr__(self) -> str:
        return repr(self._tx_cls)


def _no_buffer(position: int, keyword: str) -> Callable[[tuple[Any, ...], dict[str, Any]], None]:
    def check(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if len(args) > position or kwargs.get(keyword) is not None:
            raise refuse("refused.raw-buffer", keyword=keyword)

    return check


SAFE_NDARRAY = GuardedClass(np.ndarray, _no_buffer(2, "buffer"))
SAFE_RECARRAY = GuardedClass(np.recarray, _no_buffer(2, "buf"))


class SafeDataLoader(torch.utils.data.DataLoader):  # type: ignore[type-arg]
    """``torch.utils.data.DataLoader`` without worker processes (``num_workers`` must be 0)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if (len(args) > 6 and args[6]) or kwargs.get("num_workers", 0):
            raise refuse("refused.dataloader-workers")
        for key in ("multiprocessing_context", "worker_init_fn"):
            if kwargs.get(key) is not None:
                raise refuse("refused.dataloader-keyword", key=key)
        super().__init__(*args, **kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("num_workers", "multiprocessing_context", "worker_init_fn") and value:
            raise refuse("refused.dataloader-attr", name=name)
        super().__setattr__(name, value)


# ----- module allowlists ----------------------------------------------------------------------

_TORCH_DENY = frozenset(
    {
        "save", "load", "from_file", "compile", "cond", "while_loop", "fork", "wait",
        "import_ir_module", "import_ir_module_from_buffer", "parse_ir", "parse_schema",
        "parse_type_comment", "merge_type_from_type_comment", "unify_type_list", "get_file_path",
        "prepare_multiprocessing_environment", "get_device_module", "init_num_threads",
        "from_dlpack", "to_dlpack", "classproperty", "thread_safe_generator", "empty_quantized",
        "frombuffer",
    }
)  # fmt: skip
_TORCH_DENY_PARTS = ("cudnn", "miopen", "mkldnn", "fbgemm", "quantiz", "autocast", "sym_",
                     "dlpack", "sparse_", "vulkan", "_ir", "resize")  # fmt: skip
_TORCH_SETTERS_OK = frozenset({"set_grad_enabled", "set_default_dtype", "set_printoptions",
                               "set_rng_state"})  # fmt: skip
# mixed precision, as the course writes it: the context manager and what it reports (it changes
# only which dtype operations inside its block compute in)
_TORCH_AUTOCAST_OK = frozenset({"autocast", "is_autocast_enabled", "get_autocast_dtype"})
_TORCH_EXTRA = frozenset(
    {"set_default_dtype", "set_grad_enabled", "broadcast_shapes", "unique", "strided",
     "channels_last", "contiguous_format", "preserve_format", "sparse_coo", "pca_lowrank",
     "svd_lowrank", "lu", "default_generator"}
)  # fmt: skip
_TORCH_CLASSES = frozenset(
    {"Tensor", "Size", "device", "dtype", "Generator", "finfo", "iinfo", "no_grad", "enable_grad",
     "inference_mode", "set_grad_enabled", "layout", "memory_format", "FloatTensor",
     "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor",
     "CharTensor", "ByteTensor", "BoolTensor", "OutOfMemoryError"}
)  # fmt: skip
_NUMPY_DENY = frozenset(
    {
        "save", "savez", "savez_compressed", "load", "loadtxt", "savetxt", "genfromtxt",
        "fromfile", "fromregex", "memmap", "DataSource", "info", "show_config", "show_runtime",
        "get_include", "test", "seterr", "seterrcall", "set_printoptions", "geterrcall",
        "setbufsize", "from_dlpack",
        "ctypeslib", "lib", "f2py", "testing", "char", "rec", "ma", "chararray", "core",
        "typing", "polynomial", "dtypes", "exceptions", "strings", "emath", "frombuffer",
    }
)  # fmt: skip


def _is_module(value: Any) -> bool:
    return isinstance(value, types.ModuleType)


def _members(module: Any, names: Iterable[str], keep: Callable[[str, Any], bool]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in sorted(set(names)):
        if name.startswith("_") or attr_refusal(name):
            continue
        value = getattr(module, name, None)
        if value is None and name != "newaxis":
            continue
        if _is_module(value) or not keep(name, value):
            continue
        out[name] = value
    return out


def _torch_keep(name: str, value: Any) -> bool:
    if name in _TORCH_AUTOCAST_OK:
        return True
    if name in _TORCH_DENY or any(part in name for part in _TORCH_DENY_PARTS):
        return False
    if name.startswith("set_") and name not in _TORCH_SETTERS_OK:
        return False
    if isinstance(value, type):
        return name in _TORCH_CLASSES
    if isinstance(value, torch.dtype | torch.layout | torch.memory_format | torch.Generator):
        return True
    if isinstance(value, bool | int | float) or value is None:
        return True
    return callable(value)


def _public_callables(module: Any, names: Iterable[str] | None = None) -> dict[str, Any]:
    names = names if names is not None else dir(module)
    return _members(module, names, lambda _n, v: callable(v) or isinstance(v, int | float))


def _torch_members() -> dict[str, Any]:
    names = set(torch.__all__) | set(dir(torch._C._VariableFunctions)) | _TORCH_EXTRA
    out = _members(torch, [n for n in names if hasattr(torch, n)], _torch_keep)
    for name in ("nn", "optim", "linalg", "fft", "special", "random", "autograd", "utils", "cuda"):
        out[name] = _Sub(f"torch.{name}")
    return out


def _nn_members() -> dict[str, Any]:
    def keep(name: str, value: Any) -> bool:
        return isinstance(value, type) and "Parallel" not in name and name != "SyncBatchNorm"

    out = _members(torch.nn, dir(torch.nn), keep)
    for name in ("functional", "init", "utils"):
        out[name] = _Sub(f"torch.nn.{name}")
    return out


def _functional_members() -> dict[str, Any]:
    modules = {"torch.nn.functional", "torch._C._nn", "torch", "torch.functional",
               "torch._C._VariableFunctions", "torch._jit_internal"}  # fmt: skip

    def keep(name: str, value: Any) -> bool:
        if name.startswith(("has_torch_function", "BroadcastingList")) or name in {
            "boolean_dispatch",
            "assert_int_or_pair",
            "handle_torch_function",
        }:
            return False
        return (
            callable(value)
            and not isinstance(value, type)
            and (
                getattr(value, "__module__", None) in modules
                or isinstance(value, types.BuiltinFunctionType)
            )
        )

    return _members(torch.nn.functional, dir(torch.nn.functional), keep)


def _named(module: Any, names: Iterable[str]) -> dict[str, Any]:
    return {n: getattr(module, n) for n in names if hasattr(module, n)}


def _numpy_members() -> dict[str, Any]:
    # Only names NumPy has already bound: the rest of __all__ are submodules that its module
    # __getattr__ would import on access (0.2 s of start-up), and modules are refused anyway.
    loaded = [n for n in np.__all__ if n in vars(np)]
    out = _members(np, loaded, lambda name, _v: name not in _NUMPY_DENY)
    out["ndarray"] = SAFE_NDARRAY
    out["recarray"] = SAFE_RECARRAY
    if "repeat" in out:  # np.repeat(a, 2**62) crashes NumPy: checked as ndarray.repeat is
        out["repeat"] = _checked_repeat(out["repeat"], bound=False)
    for name in ("random", "linalg", "fft"):
        out[name] = _Sub(f"numpy.{name}")
    return out


def _optim_members() -> dict[str, Any]:
    out = _members(torch.optim, dir(torch.optim), lambda _n, v: isinstance(v, type))
    out["lr_scheduler"] = _Sub("torch.optim.lr_scheduler")
    return out


def _builders() -> dict[str, Callable[[], dict[str, Any]]]:
    import torch.utils.data as tud

    return {
        "torch": _torch_members,
        "torch.nn": _nn_members,
        "torch.nn.functional": _functional_members,
        "torch.nn.init": lambda: _members(
            torch.nn.init,
            dir(torch.nn.init),
            lambda _n, v: getattr(v, "__module__", None) == "torch.nn.init",
        ),
        "torch.nn.utils": lambda: _named(
            torch.nn.utils,
            [
                "clip_grad_norm_",
                "clip_grad_value_",
                "clip_grads_with_norm_",
                "get_total_norm",
                "parameters_to_vector",
                "vector_to_parameters",
            ],
        ),
        "torch.optim": _optim_members,
        "torch.optim.lr_scheduler": lambda: _members(
            torch.optim.lr_scheduler,
            dir(torch.optim.lr_scheduler),
            lambda _n, v: (
                isinstance(v, type) and getattr(v, "__module__", "") == "torch.optim.lr_scheduler"
            ),
        ),
        "torch.linalg": lambda: _public_callables(torch.linalg),
        "torch.fft": lambda: _public_callables(torch.fft, torch.fft.__all__),
        "torch.special": lambda: _public_callables(torch.special, torch.special.__all__),
        "torch.random": lambda: _named(
            torch.random,
            ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng"],
        ),
        "torch.autograd": lambda: {
            **_named(
                torch.autograd,
                [
                    "grad",
                    "backward",
                    "gradcheck",
                    "gradgradcheck",
                    "detect_anomaly",
                    "no_grad",
                    "enable_grad",
                    "inference_mode",
                    "set_grad_enabled",
                    "Variable",
                ],
            ),
            "functional": _Sub("torch.autograd.functional"),
        },
        "torch.autograd.functional": lambda: _named(
            torch.autograd.functional, ["jacobian", "hessian", "vjp", "jvp", "vhp", "hvp"]
        ),
        "torch.utils": lambda: {"data": _Sub("torch.utils.data")},
        "torch.utils.data": lambda: {
            **_named(
                tud,
                [
                    "TensorDataset",
                    "Dataset",
                    "Subset",
                    "ConcatDataset",
                    "random_split",
                    "default_collate",
                ],
            ),
            "DataLoader": SafeDataLoader,
        },
        "torch.cuda": lambda: _named(
            torch.cuda,
            [
                "is_available",
                "device_count",
                "current_device",
                "get_device_name",
                "get_device_capability",
                "synchronize",
                "empty_cache",
                "memory_allocated",
                "max_memory_allocated",
                "memory_reserved",
                "max_memory_reserved",
                "reset_peak_memory_stats",
                "manual_seed",
                "manual_seed_all",
                "is_bf16_supported",
                "OutOfMemoryError",
            ],
        ),
        "numpy": _numpy_members,
        "numpy.random": lambda: _members(np.random, np.random.__all__, lambda _n, _v: True),
        "numpy.linalg": lambda: _members(np.linalg, np.linalg.__all__, lambda _n, _v: True),
        "numpy.fft": lambda: _members(np.fft, np.fft.__all__, lambda _n, _v: True),
        "math": lambda: _members(
            math, dir(math), lambda _n, v: callable(v) or isinstance(v, float)
        ),
    }


_PROXIES: dict[str, ModuleProxy] = {}

#: ``import X`` targets a program may use (and what ``import X`` binds)
IMPORTABLE: frozenset[str] = frozenset(
    {"torch", "numpy", "math", "torch.nn", "torch.nn.functional", "torch.nn.init",
     "torch.optim", "torch.linalg", "torch.fft", "torch.autograd", "torch.utils.data",
     "numpy.random", "numpy.linalg"}
)  # fmt: skip


def module_proxy(name: str) -> ModuleProxy:
    """The restricted proxy for an allowed module (built once, then shared)."""
    proxy = _PROXIES.get(name)
    if proxy is None:
        builder = _builders().get(name)
        if builder is None:
            raise refuse("refused.module", name=name)
        proxy = ModuleProxy(name, _out_guarded(name, _size_guarded(name, builder())))
        _PROXIES[name] = proxy
    return proxy


# ----- requests that would exhaust memory -----------------------------------------------------
#
# A factory asked for more memory than there is would either fail late (after the allocator
# over-commits and the zero-fill touches every page: swapping, then the OOM killer) or not at all.
# The factories below compute the size they were asked for first and raise MemoryError with a
# plain message when it exceeds 80% of the memory available now (``MemAvailable`` for the CPU,
# free memory for a CUDA device). Requests under ``SIZE_CHECK_MIN`` bytes are not checked. Not
# covered: methods of existing values (``x.repeat``, ``x.new_zeros``, ``expand().contiguous()``)
# and results of operations (``a @ b``): those still fail in the allocator, with its message.

SIZE_CHECK_MIN = 64 << 20
#: a single request may take at most this share of the memory available now (the rest is for
#: the app itself, previews, and the copies the next statements make)
SIZE_CHECK_SHARE = 0.8


def _dims(value: Any) -> list[int] | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | np.integer):
        return [int(value)]
    if isinstance(value, tuple | list | torch.Size) and all(
        isinstance(n, int | np.integer) and not isinstance(n, bool) for n in value
    ):
        return [int(n) for n in value]
    return None


def _torch_shape(args: tuple[Any, ...], kwargs: dict[str, Any], first: int = 0) -> list[int] | None:
    if "size" in kwargs:
        return _dims(kwargs["size"])
    rest = args[first:]
    if len(rest) == 1:
        return _dims(rest[0])
    if rest and all(isinstance(n, int | np.integer) and not isinstance(n, bool) for n in rest):
        return [int(n) for n in rest]
    return None


def _count_range(start: Any, end: Any, step: Any) -> int | None:
    try:
        span = (float(end) - float(start)) / float(step)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return max(0, math.ceil(span)) if math.isfinite(span) else None


def _arange_count(*args: Any, **kwargs: Any) -> int | None:
    start, end, step = 0, None, 1
    if len(args) == 1:
        end = args[0]
    elif len(args) == 2:
        start, end = args
    elif len(args) >= 3:
        start, end, step = args[:3]
    start = kwargs.get("start", start)
    end = kwargs.get("end", kwargs.get("stop", end))
    step = kwargs.get("step", step)
    return None if end is None else _count_range(start, end, step)


def _torch_itemsize(kwargs: dict[str, Any], default: torch.dtype | None = None) -> int:
    dtype = kwargs.get("dtype")
    if isinstance(dtype, torch.dtype):
        return dtype.itemsize
    return (default or torch.get_default_dtype()).itemsize


def _np_itemsize(kwargs: dict[str, Any], args: tuple[Any, ...] = (), pos: int = 1) -> int:
    dtype = kwargs.get("dtype", args[pos] if len(args) > pos else None)
    try:
        return int(np.dtype(dtype).itemsize) if dtype is not None else 8
    except (TypeError, ValueError):
        return 8


def _elements(shape: list[int] | None) -> int | None:
    if shape is None or any(n < 0 for n in shape):
        return None
    return math.prod(shape)


def _t(count: Callable[..., int | None], default: torch.dtype | None = None) -> Callable[..., Any]:
    def size(*args: Any, **kwargs: Any) -> tuple[int | None, Any]:
        n = count(*args, **kwargs)
        return (None if n is None else n * _torch_itemsize(kwargs, default)), kwargs.get("device")

    return size


def _n(count: Callable[..., int | None], dtype_pos: int | None = None) -> Callable[..., Any]:
    def size(*args: Any, **kwargs: Any) -> tuple[int | None, Any]:
        n = count(*args, **kwargs)
        item = _np_itemsize(kwargs, args, dtype_pos) if dtype_pos is not None else 8
        return (None if n is None else n * item), "cpu"

    return size


def _randint_shape(*args: Any, **kwargs: Any) -> int | None:
    if "size" in kwargs:
        return _elements(_dims(kwargs["size"]))
    seqs = [a for a in args if isinstance(a, tuple | list | torch.Size)]
    return _elements(_dims(seqs[-1])) if seqs else None


def _size_arg(key: str, pos: int, default: Any = None) -> Callable[..., int | None]:
    """The number of elements of the shape (or count) given as ``key=`` or as argument ``pos``."""

    def count(*args: Any, **kwargs: Any) -> int | None:
        return _elements(_dims(kwargs.get(key, args[pos] if len(args) > pos else default)))

    return count


def _strided_extent(*args: Any, **kwargs: Any) -> int | None:
    size = _dims(kwargs.get("size", args[0] if args else None))
    stride = _dims(kwargs.get("stride", args[1] if len(args) > 1 else None))
    if size is None or stride is None or len(size) != len(stride) or 0 in size:
        return 0 if size is not None and 0 in size else None
    return 1 + sum((n - 1) * abs(st) for n, st in zip(size, stride, strict=True))


_TORCH_SIZED: dict[str, Callable[..., Any]] = {
    **{name: _t(lambda *a, **k: _elements(_torch_shape(a, k)))
       for name in ("zeros", "ones", "empty", "rand", "randn")},
    "full": _t(_size_arg("size", 0)),
    "randint": _t(_randint_shape, torch.int64),
    "randperm": _t(_size_arg("n", 0), torch.int64),
    "arange": _t(_arange_count, torch.int64),
    "linspace": _t(_size_arg("steps", 2)),
    "logspace": _t(_size_arg("steps", 2)),
    "eye": _t(lambda *a, **k: _elements([k.get("n", a[0] if a else 0),
                                          k.get("m", a[1] if len(a) > 1 else
                                                k.get("n", a[0] if a else 0))])),
    "empty_strided": _t(_strided_extent),
}  # fmt: skip
_NUMPY_SIZED: dict[str, Callable[..., Any]] = {
    **{name: _n(_size_arg("shape", 0), 1)
       for name in ("zeros", "ones", "empty")},
    "full": _n(_size_arg("shape", 0), 2),
    "arange": _n(_arange_count),
    "linspace": _n(_size_arg("num", 2, 50)),
    "eye": _n(lambda *a, **k: _elements([k.get("N", a[0] if a else 0),
                                         k.get("M", a[1] if len(a) > 1 else None)
                                         or k.get("N", a[0] if a else 0)]), 3),
}  # fmt: skip
_RANDOM_SIZED: dict[str, Callable[..., Any]] = {
    "rand": _n(lambda *a, **k: _elements(_dims(list(a)))),
    "randn": _n(lambda *a, **k: _elements(_dims(list(a)))),
    "random": _n(_size_arg("size", 0)),
    "random_sample": _n(_size_arg("size", 0)),
    "uniform": _n(_size_arg("size", 2)),
    "normal": _n(_size_arg("size", 2)),
    "randint": _n(_size_arg("size", 2)),
}
_SIZED = {"torch": _TORCH_SIZED, "numpy": _NUMPY_SIZED, "numpy.random": _RANDOM_SIZED}


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"


def check_request(what: str, nbytes: int | None, device: Any = None) -> None:
    """Raise MemoryError, before allocating, when ``nbytes`` exceed the memory available."""
    if nbytes is None or nbytes < SIZE_CHECK_MIN:
        return
    try:
        dev = torch.device(device) if device is not None else torch.get_default_device()
        if dev.type not in ("cpu", "cuda"):  # meta: no memory; others: not measured
            return
        free = available_memory(dev)
    except (RuntimeError, TypeError, ValueError):
        return
    if free is not None and nbytes > free * SIZE_CHECK_SHARE:
        where = "" if dev.type == "cpu" else f" on {dev}"
        raise MemoryError(
            f"{what} was refused before allocating: it needs {_gib(nbytes)}{where} and only "
            f"{_gib(free)} of memory is available now. Use a smaller shape (or a smaller dtype)."
        )


def _sized_factory(label: str, fn: Callable[..., Any], size: Callable[..., Any]) -> Any:
    @functools.wraps(fn)
    def factory(*args: Any, **kwargs: Any) -> Any:
        try:
            nbytes, device = size(*args, **kwargs)
        except (TypeError, ValueError, OverflowError, IndexError):
            nbytes, device = None, None
        check_request(label, nbytes, device)
        return fn(*args, **kwargs)

    return factory


def _size_guarded(module: str, members: dict[str, Any]) -> dict[str, Any]:
    for name, size in _SIZED.get(module, {}).items():
        if name in members:
            short = {"torch": "torch", "numpy": "np", "numpy.random": "np.random"}[module]
            members[name] = _sized_factory(f"{short}.{name}", members[name], size)
    return members


#: the module proxies whose functions take ``out=`` tensors (checked by :func:`check_out`)
_OUT_MODULES = frozenset({"torch", "torch.nn.functional", "torch.linalg", "torch.fft",
                          "torch.special"})  # fmt: skip


def check_out(out: Any) -> None:
    """Refuse ``out=`` tensors whose memory cannot grow (it is a NumPy array's:
    ``torch.from_numpy(a)``, or ``t.numpy()`` was called): torch resizes an ``out=`` tensor
    to the result's shape before it finds that its storage cannot grow, and leaves the tensor
    with that shape over the smaller memory (reads and writes out of bounds)."""
    for t in out if isinstance(out, tuple | list) else (out,):
        if (isinstance(t, torch.Tensor) and t.layout == torch.strided
                and not t.untyped_storage().resizable()):
            raise refuse("refused.memory-out")


def _out_checked(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        out = kwargs.get("out")
        if out is not None:
            check_out(out)
        return fn(*args, **kwargs)

    return call


def _out_guarded(module: str, members: dict[str, Any]) -> dict[str, Any]:
    if module in _OUT_MODULES:
        for name, value in members.items():
            if callable(value) and not isinstance(value, type) and not isinstance(value, _Sub):
                members[name] = _out_checked(value)
    return members


_GUARD_LOCK = threading.Lock()
_GUARD_DEPTH = [0]
_GUARD_SAVED: dict[tuple[Any, str], Any] = {}
_TORCH_CHECKS: dict[Any, tuple[str, Callable[..., Any]]] = {}


class _FactoryCheck(torch.overrides.TorchFunctionMode):
    """torch's factories, called by the user's own code on this thread, check the memory
    they are asked for first (a mode, not a replaced function: torch's own bookkeeping of its
    functions, e.g. which ones ``with torch.device(...)`` applies to, stays right)."""

    def __torch_function__(self, func: Any, types: Any, args: Any = (),
                           kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        check = _TORCH_CHECKS.get(func)
        if check is not None:
            label, size = check
            try:
                nbytes, device = size(*args, **kwargs)
            except (TypeError, ValueError, OverflowError, IndexError):
                nbytes, device = None, None
            check_request(label, nbytes, device)
        return func(*args, **kwargs)


@contextlib.contextmanager
def memory_guard() -> Iterator[None]:
    """While the user's own (full Python) code runs: torch's and NumPy's factories check the
    memory they are asked for first, as the restricted runner's do (``torch.zeros(10**6,
    10**6)`` is refused before allocating instead of filling memory until the system kills the
    app). torch's through a function mode on this thread; NumPy's (which has no such hook) are
    wrapped for the duration, which only adds the check."""
    import importlib

    if not _TORCH_CHECKS:
        for name, size in _SIZED["torch"].items():
            fn = getattr(torch, name, None)
            if fn is not None:
                _TORCH_CHECKS[fn] = (f"torch.{name}", size)
    with _GUARD_LOCK:
        _GUARD_DEPTH[0] += 1
        if _GUARD_DEPTH[0] == 1:
            for module_name in ("numpy", "numpy.random"):
                module = importlib.import_module(module_name)
                short = {"numpy": "np", "numpy.random": "np.random"}[module_name]
                for name, size in _SIZED[module_name].items():
                    original = getattr(module, name, None)
                    if original is not None:
                        _GUARD_SAVED[(module, name)] = original
                        setattr(module, name, _sized_factory(f"{short}.{name}", original, size))
    try:
        with _FactoryCheck():
            yield
    finally:
        with _GUARD_LOCK:
            _GUARD_DEPTH[0] -= 1
            if _GUARD_DEPTH[0] == 0:
                for (module, name), original in _GUARD_SAVED.items():
                    setattr(module, name, original)
                _GUARD_SAVED.clear()


def prebound() -> dict[str, ModuleProxy]:
    """The names every program starts with: ``torch``, ``np``, ``nn``, ``F``."""
    return {
        "torch": module_proxy("torch"),
        "np": module_proxy("numpy"),
        "nn": module_proxy("torch.nn"),
        "F": module_proxy("torch.nn.functional"),
    }


# ----- the runtime guard ----------------------------------------------------------------------


class _SafeFormatter(string.Formatter):
    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        # the same parse str.format uses: "0.attr[key]" -> first, [(is_attr, key)...]
        first, rest = _field_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            obj = guarded_getattr(obj, key) if is_attr else obj[key]
        return obj, first


def _field_split(field_name: str) -> tuple[Any, list[tuple[bool, Any]]]:
    import _string  # the C helper behind str.format

    first, rest = _string.formatter_field_name_split(field_name)
    return first, list(rest)


_FORMATTER = _SafeFormatter()


def safe_format(template: str, /, *args: Any, **kwargs: Any) -> str:
    """``str.format`` whose ``{0.attr}`` fields go through the attribute guard."""
    return _FORMATTER.vformat(str(template), args, kwargs)


def safe_format_map(template: str, mapping: Any, /) -> str:
    """``str.format_map`` whose ``{name.attr}`` fields go through the attribute guard."""
    return _FORMATTER.vformat(str(template), (), mapping)


def _label(cls: Any) -> str:
    """``torch.Tensor``, ``type``, ``Net``: a class (or what stands for one) as a program would
    name it."""
    if cls is _safe_type:
        return "type"
    if type(cls) is ModuleProxy:
        return cls._tx_name
    if isinstance(cls, GuardedClass):
        cls = cls._tx_cls
    if cls is SafeDataLoader:
        return "torch.utils.data.DataLoader"
    if not isinstance(cls, type):
        name = getattr(cls, "__name__", None) if callable(cls) else None
        return name if isinstance(name, str) else f"a {type(cls).__name__} value"
    module = getattr(cls, "__module__", None)
    name = cls.__qualname__
    if not isinstance(module, str) or module in ("builtins", "__main__", "__program__"):
        return name
    return f"{module}.{name}"


def _read_fact(obj: Any, name: str) -> Any:
    """``obj.__name__`` / ``__qualname__`` / ``__version__`` (:data:`READABLE_DUNDERS`), or a
    special method of a ``super(...)`` object (``super().__init__``)."""
    if type(obj) is super:
        owner = obj.__thisclass__  # type: ignore[attr-defined]
        if name not in SPECIAL_METHODS or owner not in _RESTRICTED_CLASSES:
            raise refuse("refused.underscore", name=name)
        return getattr(obj, name)
    if type(obj) is ModuleProxy:
        if name == "__version__":
            if obj._tx_name not in VERSIONED_MODULES:
                raise refuse("refused.member", owner=obj._tx_name, name=name)
            import importlib

            return importlib.import_module(obj._tx_name).__version__
        return obj._tx_name
    if name == "__version__":
        raise refuse("refused.underscore", name=name)
    if isinstance(obj, GuardedClass):
        obj = obj._tx_cls
    # a class: its own name, whatever its metaclass says; else AttributeError when there is none
    value = type.__dict__[name].__get__(obj, type) if isinstance(obj, type) else getattr(obj, name)
    if type(value) is not str:
        raise refuse("refused.underscore", name=name)
    return value


def guarded_getattr(obj: Any, name: str) -> Any:
    """``obj.name`` as a program sees it (every attribute read of a program comes here)."""
    if name in READABLE_DUNDERS or (name in SPECIAL_METHODS and type(obj) is super):
        return _read_fact(obj, name)
    why = attr_refusal(name)
    if why:
        raise refuse(why)
    if type(obj) is ModuleProxy:
        return obj._tx_get(name)
    memory = memory_refusal(obj, name)  # tensors, arrays, scalars, storages and their classes
    if memory is not None:
        raise refuse(memory)
    if isinstance(obj, GuardedClass):
        value = getattr(obj._tx_cls, name)
    elif _is_module(obj):
        raise refuse("refused.modules")
    elif isinstance(obj, _FRAMELIKE):
        raise refuse("refused.frames")
    elif name in ("format", "format_map") and (
        isinstance(obj, str) or (isinstance(obj, type) and issubclass(obj, str))
    ):
        base = safe_format if name == "format" else safe_format_map
        return functools.partial(base, obj) if isinstance(obj, str) else base
    else:
        value = getattr(obj, name)
    if _is_module(value):
        raise refuse("refused.module-attr", name=name)
    if name in allowlist.TENSOR_COPIED and callable(value) and memory_kind(obj) == "tensor":
        value = _copying(value)
    elif name in allowlist.NDARRAY_CHECKED and callable(value) and memory_kind(obj) == "ndarray":
        value = _checked_repeat(value, bound=not isinstance(obj, type | GuardedClass))
    cls = obj._tx_cls if isinstance(obj, GuardedClass) else obj
    if isinstance(cls, type) and not isinstance(value, type):
        return _unbound(cls, name, value)
    return value


#: ``repeat`` counts times the array's size beyond this are refused (NumPy's own total wraps
#: around past 2**63 and it writes out of bounds: ``np.arange(4.0).repeat(2**62)`` crashes)
MAX_REPEAT_ELEMENTS = 1 << 48


def check_repeat(a: Any, repeats: Any) -> None:
    """Raise ``ValueError`` when ``np.repeat(a, repeats)`` / ``a.repeat(repeats)`` asks for
    more than :data:`MAX_REPEAT_ELEMENTS` elements, before NumPy computes a size that wraps
    around (found by the crash fuzzer: NumPy 2.4 segfaults there)."""
    try:
        counts = np.asarray(repeats)
        size = int(np.size(a))
    except Exception:  # NumPy raises its own error for what it cannot read
        return
    if counts.size == 0 or size == 0 or counts.dtype.kind not in "iub":
        return
    biggest = max(abs(int(counts.max())), abs(int(counts.min())))
    if biggest * size > MAX_REPEAT_ELEMENTS:
        raise ValueError(
            f"repeat: {biggest:,} repeats of {size:,} elements is more than this app computes "
            f"({MAX_REPEAT_ELEMENTS:,} elements at most)"
        )


def _checked_repeat(method: Callable[..., Any], bound: bool) -> Callable[..., Any]:
    """``a.repeat`` (``bound``) or ``np.ndarray.repeat`` / ``np.repeat`` with
    :func:`check_repeat` first."""

    @functools.wraps(method)
    def repeat(*args: Any, **kwargs: Any) -> Any:
        rest = args if bound else args[1:]
        target = getattr(method, "__self__", None) if bound else (args[0] if args else None)
        if rest or "repeats" in kwargs:
            check_repeat(target, rest[0] if rest else kwargs["repeats"])
        return method(*args, **kwargs)

    return repeat


def _copying(method: Callable[..., Any]) -> Callable[..., Any]:
    """A sparse tensor's ``indices()`` (``crow_indices()``...) that returns a copy: the tensor
    torch hands out is the sparse tensor's own, and sparse kernels trust what is written there
    (``s.indices()[0, 0] = 10**8`` then ``s.to_dense()`` writes out of bounds)."""

    @functools.wraps(method)
    def copy(*args: Any, **kwargs: Any) -> Any:
        result = method(*args, **kwargs)
        return result.clone() if isinstance(result, torch.Tensor) else result

    return copy


#: what a class hands out for a method read on the class itself (``Cls.method``)
_METHOD_KINDS = (types.FunctionType, types.MethodDescriptorType, types.WrapperDescriptorType,
                 types.BuiltinFunctionType)


def _unbound(cls: type, name: str, value: Any) -> Any:
    """``Cls.method`` read on the class: a function that runs on ``self`` only when ``self``
    is an instance of ``Cls``. Library methods called on anything (``LRScheduler.
    load_state_dict(F.relu, {...})`` is ``F.relu.__dict__.update(...)``) would write or read
    attributes of objects no program may touch. Class and static methods, and properties'
    values, are as the class gives them."""
    raw = inspect.getattr_static(cls, name, None)
    if isinstance(raw, staticmethod | classmethod) or not isinstance(value, _METHOD_KINDS):
        return value
    if isinstance(value, types.BuiltinFunctionType) and getattr(value, "__self__", None) is cls:
        return value  # a C classmethod bound to the class (torch.Tensor._make_subclass...)

    @functools.wraps(value)
    def method(*args: Any, **kwargs: Any) -> Any:
        if not args or not isinstance(args[0], cls):
            raise refuse("refused.unbound", cls=cls.__name__, name=name)
        return value(*args, **kwargs)

    return method


def _check_store(obj: Any, name: str) -> None:
    why = attr_refusal(name)
    if why:
        raise refuse(why)
    if type(obj) is ModuleProxy or isinstance(obj, GuardedClass) or _is_module(obj):
        raise refuse("refused.set-module")
    if isinstance(obj, type):
        raise refuse("refused.set-class")
    if isinstance(obj, _STORAGES + _FRAMELIKE) or (
        callable(obj)
        and not isinstance(obj, torch.nn.Module)
        and type(obj) not in _RESTRICTED_CLASSES
    ):
        raise refuse("refused.set-attr", name=name)
    if isinstance(obj, np.ndarray) and name != "shape":
        raise refuse("refused.set-ndarray", name=name)
    if isinstance(obj, _NP_FLAGS):  # a.flags.writeable = ...: what ndarray.setflags does
        raise refuse("refused.memory-raw", owner="np.ndarray.flags", name=name)
    for klass in type(obj).__mro__:
        if (klass not in _RESTRICTED_CLASSES and klass is not object and name in vars(klass)
                and not inspect.isdatadescriptor(vars(klass)[name])):
            # x.is_inference = f, net.modules = f: the app (and torch) call these methods of
            # library classes; an attribute of the object would answer instead
            raise refuse("refused.hide", name=name, owner=klass.__name__)


def guarded_setattr(obj: Any, name: str, value: Any) -> None:
    """``obj.name = value`` as a program does it."""
    _check_store(obj, name)
    setattr(obj, name, value)


def guarded_delattr(obj: Any, name: str) -> None:
    """``del obj.name`` as a program does it."""
    _check_store(obj, name)
    delattr(obj, name)


_NP_FLAGS = type(np.zeros(0).flags)
_IOPS: dict[str, Callable[[Any, Any], Any]] = {}


def guarded_augattr(obj: Any, name: str, op: str, value: Any) -> None:
    """``obj.name <op>= value`` as a program does it."""
    import operator

    if not _IOPS:
        _IOPS.update({
            "Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul,
            "Div": operator.itruediv, "FloorDiv": operator.ifloordiv, "Mod": operator.imod,
            "Pow": operator.ipow, "MatMult": operator.imatmul, "BitAnd": operator.iand,
            "BitOr": operator.ior, "BitXor": operator.ixor, "LShift": operator.ilshift,
            "RShift": operator.irshift,
        })  # fmt: skip
    current = guarded_getattr(obj, name)
    guarded_setattr(obj, name, _IOPS[op](current, value))


def module_for_import(name: str) -> ModuleProxy:
    """What ``import name`` binds (the proxy of an allowed module)."""
    if name not in IMPORTABLE:
        raise refuse("refused.import", name=name)
    return module_proxy(name)


def from_import(module: str, name: str) -> Any:
    """What ``from module import name`` binds."""
    return guarded_getattr(module_for_import(module), name)


# ----- classes --------------------------------------------------------------------------------

#: the classes restricted programs made (``class`` statements through :func:`safe_build_class`)
_RESTRICTED_CLASSES: weakref.WeakSet[type] = weakref.WeakSet()
_LIBRARY_BASES: frozenset[type] | None = None


def allowed_bases() -> frozenset[type]:
    """The library classes a class of a program may derive from: ``torch.nn.Module`` and the
    module classes of the ``nn`` proxy, ``torch.utils.data.Dataset`` and the datasets of the
    ``torch.utils.data`` proxy, the exception classes among the restricted builtins. (Classes
    made by restricted programs may be bases too.)"""
    global _LIBRARY_BASES
    if _LIBRARY_BASES is None:
        import torch.utils.data as tud

        found: set[type] = set()
        for module, root in (("torch.nn", torch.nn.Module), ("torch.utils.data", tud.Dataset)):
            for value in module_proxy(module)._tx_members.values():
                if isinstance(value, type) and type(value) is type and issubclass(value, root):
                    found.add(value)
        for name in _SAFE_BUILTIN_NAMES:
            value = getattr(builtins, name, None)
            if isinstance(value, type) and issubclass(value, Exception):
                found.add(value)
        _LIBRARY_BASES = frozenset(found)
    return _LIBRARY_BASES


def is_program_class(cls: Any) -> bool:
    """Whether ``cls`` was made by a ``class`` statement of a restricted program."""
    return isinstance(cls, type) and type(cls) is type and cls in _RESTRICTED_CLASSES


def _base_ok(base: Any) -> bool:
    # exactly these classes: no metaclass but type, no __mro_entries__ stand-ins
    return isinstance(base, type) and type(base) is type and (
        base in _RESTRICTED_CLASSES or base in allowed_bases()
    )


_OVERRIDABLE_LIST = tuple(sorted(OVERRIDABLE))


def _check_class(cls: type) -> None:
    """Refuse a class whose body defined more than the policy allows (the static check refuses
    these first; this holds whatever way the body was run)."""
    library = [k for k in cls.__mro__[1:] if k is not object and k not in _RESTRICTED_CLASSES]
    inherited: set[str] = set()
    for klass in library:
        inherited.update(vars(klass))
    for key, value in vars(cls).items():
        if key.startswith("__"):
            if key not in SPECIAL_METHODS and isinstance(
                value, types.FunctionType | classmethod | staticmethod | property
            ):
                raise refuse("refused.special-method", name=key, allowed=SPECIAL_METHODS)
            continue  # what the compiler and type() add: __module__, __qualname__, __doc__...
        if key.startswith("_"):
            raise refuse("refused.class-underscore", name=key)
        if key in inherited and key not in OVERRIDABLE:
            owner = next(k for k in library if key in vars(k))
            raise refuse("refused.redefine", name=key, owner=_label(owner),
                         allowed=_OVERRIDABLE_LIST)


def safe_build_class(func: Any, name: str, /, *bases: Any, **keywords: Any) -> type:
    """``__build_class__`` of the restricted builtins: what a ``class`` statement calls."""
    if keywords:
        raise refuse("refused.construct", construct=Message("construct.class-keywords"))
    for base in bases:
        if not _base_ok(base):
            raise refuse("refused.base", base=_label(base))
    cls = builtins.__build_class__(func, name, *bases)
    if type(cls) is not type:
        raise refuse("refused.construct", construct=Message("construct.class-keywords"))
    _check_class(cls)
    _RESTRICTED_CLASSES.add(cls)
    return cls


def checked_super(cls: Any, obj: Any) -> super:
    """``super(cls, obj)`` for a class made by a restricted program and an instance of it;
    ``super()`` in a method of such a class is rewritten to this (``__tx_super__``)."""
    if not is_program_class(cls) or isinstance(obj, type):
        raise refuse("refused.super-form")
    if not issubclass(type(obj), cls):
        raise TypeError("super(type, obj): obj must be an instance or subtype of type")
    return super(cls, obj)


def safe_super(*args: Any) -> super:
    """``super`` of the restricted builtins: the two-argument form, checked
    (:func:`checked_super`); ``super()`` directly in a method never comes here."""
    if not args:
        raise refuse("refused.super-bare")
    if len(args) != 2:
        raise refuse("refused.super-form")
    return checked_super(*args)


# ----- builtins -------------------------------------------------------------------------------

_SAFE_BUILTIN_NAMES = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr",
    "complex", "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash",
    "hex", "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next",
    "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str",
    "sum", "tuple", "zip", "id",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "FloatingPointError",
    "IndexError", "KeyError", "LookupError", "NameError", "NotImplementedError",
    "OverflowError", "RecursionError", "RuntimeError", "StopIteration", "TypeError",
    "ValueError", "ZeroDivisionError", "MemoryError", "UserWarning", "Warning",
    "True", "False", "None", "NotImplemented", "Ellipsis",
)  # fmt: skip

#: builtins a program never gets (documented; they are simply absent)
REFUSED_BUILTINS: frozenset[str] = frozenset(
    {"open", "eval", "exec", "compile", "getattr", "setattr", "delattr", "globals", "locals",
     "vars", "dir", "__import__", "input", "breakpoint", "object", "memoryview", "help",
     "exit", "quit", "license", "credits", "copyright", "classmethod", "staticmethod",
     "property", "aiter", "anext", "BaseException"}
)  # fmt: skip


def _safe_type(obj: Any, *rest: Any) -> Any:
    if rest:
        raise refuse("refused.type-three")
    if isinstance(obj, type | GuardedClass):
        # type(SomeClass) is a metaclass (type itself, torch's _TensorMeta...): calling it
        # with three arguments would make classes past the checks of __build_class__
        raise refuse("refused.type-of-class")
    cls = type(obj)
    if issubclass(cls, np.recarray):
        return SAFE_RECARRAY
    if issubclass(cls, np.ndarray):
        return SAFE_NDARRAY
    if _is_module(obj) or isinstance(obj, ModuleProxy):
        raise refuse("refused.type-of-module")
    return cls


def _safe_hasattr(obj: Any, name: str) -> bool:
    if attr_refusal(name) and name not in READABLE_DUNDERS:
        return False
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    except Refused:
        refusals = getattr(_state, "refusals", None)
        if refusals:
            refusals.pop()  # asking is not reaching
        return False
    return True


def _native_import(*args: Any, **kwargs: Any) -> Any:
    # Looked up at call time and called from this module's frame, whose builtins are the real
    # ones: import hooks (PySide6's shiboken replaces builtins.__import__) find what they need.
    return builtins.__import__(*args, **kwargs)


def make_builtins(print_function: Callable[..., None]) -> dict[str, Any]:
    """The builtins dict of a program namespace, with ``print`` bound to ``print_function``."""
    out = {name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES}
    out["print"] = print_function
    # C code (torch's DynamicTypes, NumPy) imports through the *calling frame's* builtins, so
    # an __import__ must be there. Programs cannot name it (underscore) and their own import
    # statements are rewritten, so only native code ever calls it.
    out["__import__"] = _native_import
    out["type"] = _safe_type
    out["hasattr"] = _safe_hasattr
    out["super"] = safe_super
    # the compiler calls it for every class statement (LOAD_BUILD_CLASS reads the builtins)
    out["__build_class__"] = safe_build_class
    out["pow"] = safe_pow
    return out


# ---------------------------------------------------------------------------------------------
# static check and rewrite

#: constructs refused wherever they are: "<construct> are not available in the restricted
#: runner" (``refused.construct``); the values are catalog codes
_REFUSED_NODES: dict[type, str] = {
    ast.AsyncFunctionDef: "construct.async-functions",
    ast.AsyncFor: "construct.async-for",
    ast.AsyncWith: "construct.async-with",
    ast.Await: "construct.await",
    ast.Global: "construct.global",
    ast.Nonlocal: "construct.nonlocal",
    ast.Yield: "construct.yield",
    ast.YieldFrom: "construct.yield-from",
    ast.Match: "construct.match",
    ast.TryStar: "construct.except-star",
}
_TYPE_ALIAS = getattr(ast, "TypeAlias", None)

TICK = "__tx_tick__"
SUPER = "__tx_super__"
GETATTR = "__tx_ga__"
SETATTR = "__tx_sa__"
DELATTR = "__tx_da__"
AUGATTR = "__tx_aug__"
IMPORT = "__tx_import__"
FROM = "__tx_from__"
BINOP = "__tx_binop__"

#: Python integers beyond this many bits take seconds (the GIL held, Stop cannot act):
#: 10 ** (4 * 10**6) is 13M bits and takes ~1.5 s; 4M bits take ~0.1 s.
MAX_INT_BITS = 1 << 22
#: repeating a str/bytes/list/tuple (``"x" * n``) beyond this many items is refused
MAX_REPEAT_ITEMS = 50_000_000
_BINOPS: dict[str, Callable[[Any, Any], Any]] = {}


def _too_big(what: str, size: int, limit: int, unit: str) -> MemoryError:
    return MemoryError(
        f"{what} would make a value of about {size:,} {unit}: too large to compute here (the "
        f"limit is {limit:,} {unit}, so a runaway expression cannot freeze the app)"
    )


def _int_like(x: Any) -> bool:
    return isinstance(x, int)


def guarded_binop(op: str, a: Any, b: Any, inplace: bool = False) -> Any:
    """``a <op> b`` (``**``, ``<<``, ``*``) with a size check first for Python integers and for
    repeated sequences; everything else (tensors, arrays, floats) goes straight to the operator.
    """
    import operator

    if not _BINOPS:
        _BINOPS.update({
            "Pow": operator.pow, "LShift": operator.lshift, "Mult": operator.mul,
            "iPow": operator.ipow, "iLShift": operator.ilshift, "iMult": operator.imul,
        })  # fmt: skip
    if _int_like(a) and _int_like(b):
        if op == "Pow" and b > 1 and abs(a) > 1:
            bits = b * (abs(a).bit_length() - 1)
            if bits > MAX_INT_BITS:
                raise _too_big(f"{a} ** {b}", bits, MAX_INT_BITS, "bits")
        elif op == "LShift" and b > 0 and a:
            bits = abs(a).bit_length() + b
            if bits > MAX_INT_BITS:
                raise _too_big(f"{a} << {b}", bits, MAX_INT_BITS, "bits")
    elif op == "Mult":
        for seq, n in ((a, b), (b, a)):
            if isinstance(seq, str | bytes | bytearray | list | tuple) and _int_like(n):
                items = len(seq) * n
                if items > MAX_REPEAT_ITEMS:
                    raise _too_big(f"repeating a {type(seq).__name__} {n:,} times", items,
                                   MAX_REPEAT_ITEMS, "items")
    return _BINOPS[("i" if inplace else "") + op](a, b)


def safe_pow(base: Any, exp: Any, mod: Any = None) -> Any:
    """The builtin ``pow`` with :func:`guarded_binop`'s size check (3-argument pow is cheap)."""
    if mod is not None:
        return pow(base, exp, mod)
    return guarded_binop("Pow", base, exp)


def _refuse(node: ast.AST, reason: str | Message, /, **params: Any) -> Refused:
    """A :class:`Refused` of the static check, at ``node``'s line: ``reason`` a catalog code
    with its ``params``, or a Message made already."""
    return Refused(_reason(reason, params), getattr(node, "lineno", None))


def _reason(reason: str | Message, params: dict[str, Any]) -> Message:
    """A refusal's words: a catalog code with its ``params``, or a Message made already."""
    return reason if isinstance(reason, Message) else Message(reason, **params)


def _name_ok(node: ast.AST, name: str | None) -> None:
    """A variable, argument, function, class or ``as`` name: one leading underscore is fine
    (``_``, ``_tmp``), two are not (``__builtins__``, ``__tx_ga__``...)."""
    if name is not None and name.startswith("__"):
        raise _refuse(node, "refused.underscore", name=name)


def _member_ok(node: ast.AST, name: str | None) -> None:
    """A name that selects something of another object (an attribute, a keyword argument, a
    ``from ... import`` name): no leading underscore at all."""
    if name is not None and name.startswith("_"):
        raise _refuse(node, "refused.underscore", name=name)


def _is_super_call(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "super")  # fmt: skip


def _attribute_ok(node: ast.Attribute) -> bool:
    """The read-only exceptions to the underscore rule (checked again by the guard)."""
    if not isinstance(node.ctx, ast.Load):
        return False
    return node.attr in READABLE_DUNDERS or (
        node.attr in SPECIAL_METHODS and _is_super_call(node.value)
    )


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _class_bindings(node: ast.ClassDef) -> Iterator[tuple[ast.AST, str]]:
    """(node, name) for every name a class body binds in its own scope (its class attributes);
    nested functions, lambdas, comprehensions and classes bind in scopes of their own."""
    todo: list[ast.AST] = list(node.body)
    while todo:
        item = todo.pop()
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield item, item.name
            # decorators, defaults, annotations, bases run in the class scope; bodies do not
            todo.extend(child for field, value in ast.iter_fields(item) if field != "body"
                        for child in (value if isinstance(value, list) else [value])
                        if isinstance(child, ast.AST))  # fmt: skip
            continue
        if isinstance(item, ast.Lambda):
            todo.append(item.args)
            continue
        if isinstance(item, _COMPREHENSIONS):
            todo.append(item.generators[0].iter)
            continue
        if isinstance(item, ast.Name) and not isinstance(item.ctx, ast.Load):
            yield item, item.id
        elif isinstance(item, ast.ExceptHandler) and item.name:
            yield item, item.name
        elif isinstance(item, ast.Import | ast.ImportFrom):
            for alias in item.names:
                yield item, alias.asname or alias.name.split(".")[0]
        todo.extend(ast.iter_child_nodes(item))


def _check_class_def(node: ast.ClassDef, methods: set[int]) -> None:
    """The class-only rules; ``methods`` collects the functions defined in the class body."""
    _name_ok(node, node.name)
    if node.decorator_list:
        raise _refuse(node.decorator_list[0], "refused.construct",
                      construct=Message("construct.class-decorators"))
    if node.keywords:
        raise _refuse(node.keywords[0], "refused.construct",
                      construct=Message("construct.class-keywords"))
    if getattr(node, "type_params", None):
        raise _refuse(node, "refused.construct", construct=Message("construct.type-parameters"))
    for item, name in _class_bindings(node):
        if isinstance(item, ast.FunctionDef):
            methods.add(id(item))
        if not name.startswith("_"):
            continue
        if isinstance(item, ast.FunctionDef) and name.startswith("__"):
            if name not in SPECIAL_METHODS:
                raise _refuse(item, "refused.special-method", name=name,
                              allowed=SPECIAL_METHODS)
        elif name.startswith("__"):
            raise _refuse(item, "refused.underscore", name=name)
        else:
            raise _refuse(item, "refused.class-underscore", name=name)


def check(tree: ast.Module) -> None:
    """Refuse (raise :class:`Refused` with a line) anything outside the policy."""
    methods: set[int] = set()  # ids of the FunctionDef nodes directly in a class body
    for node in ast.walk(tree):  # breadth first: a class comes before its methods
        kind = _REFUSED_NODES.get(type(node))
        if kind is None and _TYPE_ALIAS is not None and isinstance(node, _TYPE_ALIAS):
            kind = "construct.type-aliases"
        if kind is not None:
            raise _refuse(node, "refused.construct", construct=Message(kind))
        if isinstance(node, ast.Name):
            _name_ok(node, node.id)
        elif isinstance(node, ast.Attribute):
            if not _attribute_ok(node):
                why = attr_refusal(node.attr)
                if why:
                    raise _refuse(node, why)
        elif isinstance(node, ast.arg):
            _name_ok(node, node.arg)
        elif isinstance(node, ast.keyword):
            _member_ok(node, node.arg)
        elif isinstance(node, ast.ClassDef):
            _check_class_def(node, methods)
        elif isinstance(node, ast.FunctionDef):
            if getattr(node, "type_params", None):
                raise _refuse(node, "refused.construct",
                              construct=Message("construct.type-parameters"))
            if node.name.startswith("__") and id(node) not in methods:
                raise _refuse(node, "refused.special-outside-class", name=node.name)
        elif isinstance(node, ast.ExceptHandler):
            _name_ok(node, node.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name not in IMPORTABLE:
                    raise _refuse(node, _import_refusal(alias.name))
                _name_ok(node, alias.asname)
        elif isinstance(node, ast.ImportFrom):
            if node.level or node.module not in IMPORTABLE:
                raise _refuse(node, _import_refusal("." * node.level + (node.module or "")))
            for alias in node.names:
                if alias.name == "*":
                    raise _refuse(node, "refused.star-import")
                _member_ok(node, alias.name)
                _name_ok(node, alias.asname)


def _import_refusal(name: str) -> Message:
    return Message(
        "refused.import-only", name=name, modules=("torch", "numpy", "math"),
        submodules="torch.nn / torch.nn.functional / torch.nn.init / torch.optim / torch.linalg"
        " / torch.fft / torch.autograd / torch.utils.data / numpy.random / numpy.linalg",
    )


def _call(func: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=func, ctx=ast.Load()), args=list(args), keywords=[])


_SIZED_OPS = {ast.Pow: "Pow", ast.LShift: "LShift", ast.Mult: "Mult"}


class _Rewriter(ast.NodeTransformer):
    """Route attribute access through the guard, inject stop checks, rewrite imports, and send
    ``**``, ``<<`` and ``*`` through a size check (huge integers would freeze the app)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        op = _SIZED_OPS.get(type(node.op))
        if op is None:
            return node
        return ast.copy_location(_call(BINOP, ast.Constant(op), node.left, node.right), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            return ast.copy_location(_call(GETATTR, node.value, ast.Constant(node.attr)), node)
        raise _refuse(node, "refused.attr-one-at-a-time")

    def _attr_stmt(self, func: str, target: ast.Attribute, *extra: ast.expr) -> ast.Expr:
        value = self.visit(target.value)
        call = _call(func, value, ast.Constant(target.attr), *extra)
        return ast.copy_location(ast.Expr(value=call), target)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            value = self.visit(node.value)
            return ast.copy_location(self._attr_stmt(SETATTR, node.targets[0], value), node)
        return self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        if isinstance(node.target, ast.Attribute):
            value = self.visit(node.value)
            op = ast.Constant(type(node.op).__name__)
            return ast.copy_location(self._attr_stmt(AUGATTR, node.target, op, value), node)
        op_name = _SIZED_OPS.get(type(node.op))
        if op_name is not None and isinstance(node.target, ast.Name):
            # x **= y  ->  x = __tx_binop__("Pow", x, y, True): the in-place operator (ipow,
            # imul...) keeps a tensor's in-place semantics; the check comes first
            value = self.visit(node.value)
            load = ast.Name(id=node.target.id, ctx=ast.Load())
            call = _call(BINOP, ast.Constant(op_name), load, value, ast.Constant(True))
            assign = ast.Assign(targets=[node.target], value=call)
            return ast.copy_location(assign, node)
        return self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if isinstance(node.target, ast.Attribute):
            if node.value is None:
                raise _refuse(node, "refused.attr-annotation")
            value = self.visit(node.value)
            return ast.copy_location(self._attr_stmt(SETATTR, node.target, value), node)
        return self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> Any:
        out: list[ast.stmt] = []
        plain: list[ast.expr] = []
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                out.append(self._attr_stmt(DELATTR, target))
            else:
                plain.append(self.visit(target))
        if plain:
            out.insert(0, ast.copy_location(ast.Delete(targets=plain), node))
        return out

    def _tick_body(self, body: list[ast.stmt], node: ast.AST) -> list[ast.stmt]:
        tick = ast.copy_location(ast.Expr(value=_call(TICK)), node)
        return [tick, *body]

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        node.body = self._tick_body(node.body, node)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        self.generic_visit(node)
        node.body = self._tick_body(node.body, node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.body = self._tick_body(node.body, node)
        return node

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        self.generic_visit(node)
        node.body = ast.copy_location(
            ast.BoolOp(op=ast.And(), values=[_call(TICK), node.body]), node.body
        )
        return node

    def visit_comprehension(self, node: ast.comprehension) -> ast.AST:
        self.generic_visit(node)
        node.ifs = [_call(TICK), *node.ifs]
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        self.generic_visit(node)
        if node.type is None:
            node.type = ast.copy_location(ast.Name(id="Exception", ctx=ast.Load()), node)
        return node

    def visit_Import(self, node: ast.Import) -> Any:
        out = []
        for alias in node.names:
            if alias.asname:
                target, module = alias.asname, alias.name
            else:  # "import torch.nn" binds "torch"
                target = module = alias.name.split(".")[0]
            out.append(
                ast.copy_location(
                    ast.Assign(
                        targets=[ast.Name(id=target, ctx=ast.Store())],
                        value=_call(IMPORT, ast.Constant(module)),
                    ),
                    node,
                )
            )
        return out

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        return [
            ast.copy_location(
                ast.Assign(
                    targets=[ast.Name(id=alias.asname or alias.name, ctx=ast.Store())],
                    value=_call(FROM, ast.Constant(node.module), ast.Constant(alias.name)),
                ),
                node,
            )
            for alias in node.names
        ]


class _TrustedRewriter(_Rewriter):
    """For the user's own code: only the stop checks and the size check of ``**``, ``<<``,
    ``*`` (attributes, imports and everything else run as Python runs them)."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        return self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        if isinstance(node.target, ast.Attribute):
            return self.generic_visit(node)
        return super().visit_AugAssign(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        return self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> Any:
        return self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        return self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> Any:
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        return node

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.body = self._tick_body(node.body, node)
        return node


def rewrite_trusted(tree: ast.Module) -> ast.Module:
    """The user's own program with stop checks in every loop, function and comprehension and
    the size check of huge integer powers and repeats; nothing else changes."""
    return ast.fix_missing_locations(_TrustedRewriter().visit(tree))


def trusted_names(tick: Callable[[], bool]) -> dict[str, Any]:
    """The hidden helpers a trusted program calls (stop checks, size checks)."""
    return {TICK: tick, BINOP: guarded_binop}


_CLASS_SCOPE = object()


class _SuperRewriter(ast.NodeTransformer):
    """``super()`` directly in a method (not in a nested function, lambda or comprehension)
    becomes ``__tx_super__(__class__, <first argument>)``: what zero-argument ``super`` does,
    checked (:func:`checked_super`). The compiler gives the method its ``__class__`` cell."""

    def __init__(self) -> None:
        self.scopes: list[object] = []  # _CLASS_SCOPE, a method's first argument, or None

    def _in_scope(self, scope: object, body: list[ast.stmt]) -> list[ast.stmt]:
        self.scopes.append(scope)
        out: list[ast.stmt] = []
        for stmt in body:
            new = self.visit(stmt)
            out.extend(new if isinstance(new, list) else [new] if new is not None else [])
        self.scopes.pop()
        return out

    def _outer_fields(self, node: ast.AST) -> None:
        for field, value in ast.iter_fields(node):
            if field == "body":
                continue
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, ast.AST) else v
                                      for v in value])  # fmt: skip
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self._outer_fields(node)
        node.body = self._in_scope(_CLASS_SCOPE, node.body)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self._outer_fields(node)
        first = None
        if self.scopes and self.scopes[-1] is _CLASS_SCOPE:
            positional = node.args.posonlyargs + node.args.args
            first = positional[0].arg if positional else None
        node.body = self._in_scope(first, node.body)
        return node

    def _nested(self, node: ast.AST) -> ast.AST:
        self.scopes.append(None)
        self.generic_visit(node)
        self.scopes.pop()
        return node

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = _nested
    visit_GeneratorExp = _nested

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        first = self.scopes[-1] if self.scopes else None
        if (isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args
                and not node.keywords and isinstance(first, str)):
            call = _call(SUPER, ast.Name(id="__class__", ctx=ast.Load()),
                         ast.Name(id=first, ctx=ast.Load()))
            return ast.copy_location(call, node)
        return node


def rewrite(tree: ast.Module) -> ast.Module:
    """The checked program, rewritten so that the guard and the stop checks apply."""
    # every Attribute node is either turned into a guarded call or refused by visit_Attribute
    # (attribute targets hidden in tuples, for-targets, with-as...)
    tree = _SuperRewriter().visit(tree)
    return ast.fix_missing_locations(_Rewriter().visit(tree))


def runtime_names(tick: Callable[[], bool]) -> dict[str, Any]:
    """The hidden helpers a rewritten program calls (names a program itself cannot write)."""
    return {
        TICK: tick,
        SUPER: checked_super,
        GETATTR: guarded_getattr,
        SETATTR: guarded_setattr,
        DELATTR: guarded_delattr,
        AUGATTR: guarded_augattr,
        IMPORT: module_for_import,
        FROM: from_import,
        BINOP: guarded_binop,
    }
