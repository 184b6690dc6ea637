"""Classes in the restricted runner: what learners write runs exactly as in Python, and every way
of turning a class statement into an escape is refused with nothing written.

Ground truth for the positive cases is Python itself: the same source run with plain ``exec``
against the real torch modules.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path
from typing import Any

import pytest
import torch

import tensor_explorer as tx
from tensor_explorer.core import sandbox

CANARY = "canary: untouched\n"


def _plain(source: str) -> dict[str, Any]:
    """``source`` run as plain Python with the real modules the restricted names stand for."""
    ns: dict[str, Any] = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional,
                          "__name__": "__main__"}
    exec(compile(source, "<plain>", "exec"), ns)
    return ns


def _restricted(source: str) -> tx.Workspace:
    ws = tx.Workspace(restricted=True)
    ws.run(source)
    return ws


# ----- what runs ---------------------------------------------------------------------------------

TRAIN = """
torch.manual_seed(0)
class Net({base}):
    def __init__(self, n_in, n_hidden, n_out):
        {init}
        self.hidden = nn.Linear(n_in, n_hidden)
        self.out = nn.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.out(F.relu(self.hidden(x)))

    def count(self):
        return sum(p.numel() for p in self.parameters())

net = Net(2, 4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x = torch.randn(8, 2)
y = x.sum(dim=1, keepdim=True)
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = F.mse_loss(net(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
names = [name for name, _ in net.named_parameters()]
n = net.count()
w = net.hidden.weight
kind = type(net).__name__
"""


@pytest.mark.parametrize(
    ("base", "init"),
    [("torch.nn.Module", "super().__init__()"), ("nn.Module", "super().__init__()"),
     ("nn.Module", "super(Net, self).__init__()")],
)
def test_a_two_layer_module_trains_exactly_as_in_python(base: str, init: str) -> None:
    source = TRAIN.format(base=base, init=init)
    ws = _restricted(source)
    plain = _plain(source)
    assert ws["losses"] == plain["losses"]
    assert len(set(ws["losses"])) == 3  # it did train
    assert ws["names"] == plain["names"] == ["hidden.weight", "hidden.bias", "out.weight",
                                             "out.bias"]
    assert ws["n"] == plain["n"] == 17
    assert ws["kind"] == "Net"
    net, ref = ws["net"], plain["net"]
    assert isinstance(net, torch.nn.Module)
    for (name, p), (_, q) in zip(net.named_parameters(), ref.named_parameters(), strict=True):
        assert torch.equal(p, q), name
        assert p.grad is not None and torch.equal(p.grad, q.grad), name
    assert ws["w"] is net.get_parameter("hidden.weight")
    assert "net" in ws.names()


def test_the_class_is_usable_in_later_runs() -> None:
    ws = _restricted(TRAIN.format(base="nn.Module", init="super().__init__()"))
    ws.run("again = Net(3, 2, 2)\nout = again(torch.ones(5, 3))")
    assert ws["out"].shape == (5, 2)
    assert sandbox.is_program_class(ws["Net"])


PLAIN_CLASSES = """
class Point:
    dims = 2

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x * self.x + self.y * self.y

    def __repr__(self):
        return "Point(" + str(self.x) + ", " + str(self.y) + ")"

    def __str__(self):
        return "(" + str(self.x) + ", " + str(self.y) + ")"

    def __call__(self, k):
        return Point(self.x * k, self.y * k)

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return [self.x, self.y][i]

    def __setitem__(self, i, value):
        if i == 0:
            self.x = value
        else:
            self.y = value

    def __contains__(self, value):
        return value in (self.x, self.y)

    def __iter__(self):
        return iter([self.x, self.y])


class Point3(Point):
    dims = 3

    def __init__(self, x, y, z):
        super().__init__(x, y)
        self.z = z

    def norm2(self):
        return super().norm2() + self.z * self.z


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n


class TooBig(ValueError):
    def __init__(self, size):
        super().__init__("too big: " + str(size))
        self.size = size


p = Point(3, 4)
q = p(2)
q[0] = 10
r = repr(q)
s = str(p)
items = list(p)
parts = [p[0], p[1], len(p), 4 in p, 5 in p]
p3 = Point3(1, 2, 2)
n3 = p3.norm2()
dims = [Point.dims, p.dims, Point3.dims, p3.dims]
kinds = [isinstance(p3, Point), type(p3).__name__, Point3.__qualname__, p3.norm2.__name__]
down = [i for i in Countdown(3)]
p.extra = "set on an instance"
try:
    raise TooBig(7)
except ValueError as _err:
    caught = (str(_err), _err.size)
"""


def test_plain_classes_run_exactly_as_in_python() -> None:
    ws = _restricted(PLAIN_CLASSES)
    plain = _plain(PLAIN_CLASSES)
    for name in ("r", "s", "items", "parts", "n3", "dims", "kinds", "down", "caught"):
        assert ws[name] == plain[name], name
    assert ws["r"] == "Point(10, 8)" and ws["caught"] == ("too big: 7", 7)
    assert ws["p"].extra == "set on an instance"


DATASET = """
class Squares(torch.utils.data.Dataset):
    def __init__(self, n):
        self.x = torch.arange(float(n))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.x[i] ** 2

ds = Squares(6)
batches = [(a.tolist(), b.tolist()) for a, b in torch.utils.data.DataLoader(ds, batch_size=4)]

class Scaled(nn.Linear):
    def reset_parameters(self):
        nn.init.ones_(self.weight)
        nn.init.zeros_(self.bias)

    def forward(self, x):
        return super().forward(x) * 2

lin = Scaled(3, 1)
out = lin(torch.ones(1, 3)).item()

class Pair(torch.utils.data.TensorDataset):
    def __getitem__(self, i):
        a, b = super().__getitem__(i)
        return a + b

summed = [Pair(torch.ones(3), torch.arange(3.0))[i].item() for i in range(3)]
"""


def test_datasets_and_library_module_subclasses_run_as_in_python() -> None:
    ws = _restricted(DATASET)
    plain = _plain(DATASET)
    assert ws["batches"] == plain["batches"] == [
        ([0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 4.0, 9.0]), ([4.0, 5.0], [16.0, 25.0])]
    assert ws["out"] == plain["out"] == 6.0
    assert ws["summed"] == plain["summed"] == [1.0, 2.0, 3.0]


def test_class_statement_in_a_function_and_nested_classes() -> None:
    source = (
        "def make(k):\n"
        "    class Scale(nn.Module):\n"
        "        def __init__(self):\n"
        "            super().__init__()\n"
        "            self.k = k\n"
        "        def forward(self, x):\n"
        "            return x * self.k\n"
        "    return Scale()\n"
        "m = make(3)\n"
        "y = m(torch.ones(2)).tolist()\n"
        "class Outer:\n"
        "    class Inner:\n"
        "        value = 5\n"
        "v = Outer.Inner.value\n"
    )
    ws = _restricted(source)
    plain = _plain(source)
    assert ws["y"] == plain["y"] == [3.0, 3.0]
    assert ws["v"] == plain["v"] == 5


def test_methods_keep_the_restricted_builtins_when_called_from_outside(tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text(CANARY)
    ws = tx.Workspace()  # the user's own workspace: full Python by default
    ws["path"] = str(canary)
    ws.run(
        "class Sneaky:\n"
        "    def write(self, p):\n"
        "        return open(p, 'w')\n"
        "s = Sneaky()\n",
        restricted=True,
    )
    with pytest.raises(NameError):
        ws["s"].write(str(canary))  # host code calls it: still the restricted builtins
    with pytest.raises(tx.ProgramError) as info:
        ws.run("s.write(path)")  # the user's own (trusted) run calls it
    assert info.value.error_type == "NameError"
    assert canary.read_text() == CANARY


# ----- what is refused ---------------------------------------------------------------------------

CLASS_ESCAPES: dict[str, str] = {
    # --- the body reaches for what it must not ---
    "method-calls-open": "class A:\n    def m(self):\n        return open(path, 'w')\nA().m()",
    "method-calls-eval": "class A:\n    def m(self):\n        return eval('1')\nA().m()",
    "class-attr-builtins": "class A:\n    b = __builtins__",
    "class-attr-open": "class A:\n    o = open\n",
    "method-builtins": "class A:\n    def m(self):\n        return __builtins__\n",
    "method-dunder-class-name": "class A:\n    def m(self):\n        return __class__\n",
    "class-attr-underscore": "class A:\n    _x = 1",
    "class-method-underscore": (
        "class M(nn.Module):\n    def _apply(self, fn):\n        return self"
    ),
    "class-attr-slots": "class A:\n    __slots__ = ()",
    "class-attr-dunder-assign": "def f(self):\n    return 1\nclass A:\n    __init__ = f",
    "self-dunder-dict": "class A:\n    def m(self):\n        return self.__dict__\nA().m()",
    "self-private": "class A:\n    def m(self):\n        return self._x\nA().m()",
    "method-frame": (
        "class A:\n    def m(self):\n        return (i for i in [1]).gi_frame\nA().m()"
    ),
    # --- introspection of classes ---
    "subclasses": "class A:\n    pass\nA.__subclasses__()",
    "object-subclasses": "class A:\n    pass\nA.__base__.__subclasses__()",
    "object-via-mro": "class A:\n    pass\no = A.__mro__[-1]",
    "mro-method": "class A:\n    pass\no = A.mro()",
    "bases": "class A:\n    pass\nb = A.__bases__",
    "class-dict": "class A:\n    pass\nd = A.__dict__",
    "instance-class": "class A:\n    pass\nc = A().__class__",
    "method-globals": "class A:\n    def m(self):\n        pass\ng = A.m.__globals__",
    "bound-method-func": "class A:\n    def m(self):\n        pass\nf = A().m.__func__",
    "method-code": "class A:\n    def m(self):\n        pass\nc = A.m.__code__",
    "format-method-globals": (
        "class A:\n    def m(self):\n        pass\ng = '{0.m.__globals__}'.format(A())"
    ),
    "format-init-globals": "class A:\n    pass\ng = '{0.__init__.__globals__}'.format(A())",
    # --- making classes other ways ---
    "metaclass-keyword": "class A(metaclass=type):\n    pass",
    "class-keyword": "class A(nn.Module, flag=True):\n    pass",
    "class-decorator": "def deco(c):\n    return c\n@deco\nclass A:\n    pass",
    "type-three-args": "K = type('K', (), {'forward': print})",
    "type-of-class": "class A:\n    pass\nT = type(A)",
    "type-of-class-three-args": "class A:\n    pass\nK = type(A)('K', (), {'__getattr__': print})",
    "type-of-module-class": "T = type(nn.Module)",
    # --- special methods that change how Python treats the object ---
    **{
        f"special-{name.strip('_')}": f"class A:\n    def {name}(self, *args):\n        pass"
        for name in ("__getattribute__", "__getattr__", "__setattr__", "__delattr__",
                     "__init_subclass__", "__class_getitem__", "__del__", "__set_name__",
                     "__new__", "__get__", "__set__", "__reduce__", "__eq__", "__hash__",
                     "__torch_function__", "__array__", "__enter__", "__exit__", "__mro_entries__")
    },
    "special-outside-class": "def __init__(self):\n    pass",
    "special-in-nested-function": (
        "class A:\n    def m(self):\n        def __init__(s):\n            pass\n        return 1"
    ),
    "special-in-function-in-class-function": (
        "def make():\n    def __call__(self):\n        pass\n    return __call__"
    ),
    # --- super ---
    "super-type-x": "s = super(type, x)",
    "super-type-type": "s = super(type, type)",
    "super-one-arg": "class A:\n    pass\ns = super(A)",
    "super-class-second": "class A:\n    pass\ns = super(A, A)",
    "super-no-args-module": "s = super()",
    "super-in-plain-function": "def f(self):\n    return super()\nf(1)",
    "super-in-nested-function": (
        "class A:\n    def m(self):\n        def g():\n            return super()\n"
        "        return g()\nA().m()"
    ),
    "super-in-lambda": "class A:\n    def m(self):\n        return (lambda: super())()\nA().m()",
    "super-library-class": "s = super(nn.Linear, model)",
    "super-dataloader-skip-check": (
        "ds = torch.utils.data.TensorDataset(x)\n"
        "dl = torch.utils.data.DataLoader(ds)\n"
        "super(torch.utils.data.DataLoader, dl).__init__(ds, num_workers=2)"
    ),
    "super-other-dunder": (
        "class A:\n    def __init__(self):\n        super().__setattr__('x', 1)\nA()"
    ),
    "super-alias-init": (
        "class A:\n    def __init__(self):\n        s = super()\n        s.__init__()\nA()"
    ),
    "super-init-globals": (
        "class A:\n    def __init__(self):\n        super().__init__.__globals__\nA()"
    ),
    "init-of-another-object": "class A:\n    pass\nA().__init__()",
    # --- modules reached through attributes of allowed imports ---
    "nn-modules-module-sys": "s = torch.nn.modules.module.sys",
    "import-nn-modules": "import torch.nn\nm = torch.nn.modules",
    "np-lib": "l = np.lib",
    "np-core": "import numpy\nc = numpy.core",
    "F-torch-attr": "t = F.torch",
    "module-through-method": (
        "class A(nn.Module):\n    def m(self):\n        return torch.os\nA().m()"
    ),
    # --- bases that are not allowed ---
    **{
        f"base-{label}": f"class X({base}):\n    pass"
        for label, base in (
            ("tensor", "torch.Tensor"), ("parameter", "nn.Parameter"), ("type", "type"),
            ("type-of-value", "type(x)"), ("int", "int"), ("list", "list"),
            ("dict", "dict"), ("str", "str"), ("tuple", "tuple"), ("dataloader",
            "torch.utils.data.DataLoader"), ("optimizer", "torch.optim.SGD"),
            ("ndarray", "np.ndarray"), ("module-proxy", "torch"), ("function", "print"),
            ("generator", "torch.Generator"), ("size", "torch.Size"),
            ("no-grad", "torch.no_grad"), ("device", "torch.device"),
        )
    },
    # --- a subclass of a library class redefining what torch and the app rely on ---
    "redefine-parameters": (
        "class M(nn.Module):\n    def parameters(self):\n        return []\nm = M()"
    ),
    "redefine-state-dict": "class M(nn.Linear):\n    def state_dict(self):\n        return {}",
    "redefine-train": "class M(nn.Module):\n    def train(self, mode=True):\n        pass",
    "redefine-to": "class M(nn.Module):\n    def to(self, *args):\n        return self",
    "redefine-named-parameters": "class M(nn.Module):\n    named_parameters = None",
    "redefine-exception-args": "class E(Exception):\n    args = ()",
    # --- changing classes from outside ---
    "set-class-attr": "class A:\n    pass\nA.x = 1",
    "set-class-method": "class A:\n    pass\nA.m = lambda self: 1",
    "del-class-method": "class A:\n    def m(self):\n        pass\ndel A.m",
    "set-instance-dunder": "class A:\n    pass\na = A()\na.__call__ = print",
    # --- the single underscore opens nothing ---
    "underscore-open": "_ = open",
    "underscore-open-call": "_ = open(path, 'w')",
    "underscore-builtins": "_ = __builtins__",
    "underscore-import": "from torch import _C",
    "underscore-keyword": "def f(**kw):\n    return kw\nf(_private=1)",
}


@pytest.fixture
def arena(tmp_path: Path) -> tuple[tx.Workspace, Path]:
    canary = tmp_path / "canary.txt"
    canary.write_text(CANARY)
    ws = tx.Workspace(restricted=True)
    ws["path"] = str(canary)
    ws["x"] = torch.arange(4.0)
    ws["model"] = torch.nn.Linear(2, 2)
    return ws, tmp_path


def test_there_are_many_class_escapes() -> None:
    assert len(CLASS_ESCAPES) >= 80


@pytest.mark.parametrize("source", list(CLASS_ESCAPES.values()), ids=list(CLASS_ESCAPES))
def test_class_escape_is_refused_and_nothing_is_written(
    arena: tuple[tx.Workspace, Path], source: str
) -> None:
    ws, folder = arena
    with pytest.raises(tx.ProgramError) as info:
        ws.run(source)
    err = info.value
    # "not-available": a builtin the restricted runner does not have (open, eval): NameError
    assert err.kind in ("refused", "not-available"), str(err)
    assert err.line is not None
    if err.kind == "refused":
        assert (err.torch_message or "").endswith(sandbox.TRUST_HINT)
    assert sorted(p.name for p in folder.iterdir()) == ["canary.txt"]
    assert (folder / "canary.txt").read_text() == CANARY
    assert torch.nn.Module.parameters is not None
    assert torch.utils.data.DataLoader.__init__ is not None


def _refusal(source: str) -> str:
    ws = tx.Workspace(restricted=True)
    ws["x"] = torch.arange(4.0)
    with pytest.raises(tx.ProgramError) as info:
        ws.run(source)
    assert info.value.kind == "refused", str(info.value)
    return (info.value.torch_message or "").removesuffix(sandbox.TRUST_HINT)


def test_class_refusals_say_why() -> None:
    assert _refusal("class A(metaclass=type):\n    pass") == (
        "metaclasses and other class keywords are not available in the restricted runner")
    assert _refusal("def d(c):\n    return c\n@d\nclass A:\n    pass") == (
        "class decorators are not available in the restricted runner")
    assert _refusal("class A:\n    def __getattr__(self, n):\n        pass").startswith(
        "special method '__getattr__' is not available (a class may define __init__, ")
    assert _refusal("def __init__(self):\n    pass") == (
        "special methods such as '__init__' can be defined only in a class body")
    assert _refusal("class A:\n    _x = 1") == (
        "class attributes that start with '_' are not available ('_x')")
    assert _refusal("class X(torch.Tensor):\n    pass").startswith(
        "a class cannot derive from 'torch.Tensor' in the restricted runner (bases may be ")
    assert _refusal("class X(type):\n    pass").startswith("a class cannot derive from 'type' ")
    assert _refusal("class M(nn.Module):\n    def train(self):\n        pass").startswith(
        "a class cannot redefine 'train' of 'torch.nn.modules.module.Module' ")
    assert _refusal("class X(np.ndarray):\n    pass").startswith(
        "a class cannot derive from 'numpy.ndarray' ")
    assert _refusal("class X(torch):\n    pass").startswith("a class cannot derive from 'torch' ")
    assert _refusal("s = super()") == (
        "super() without arguments works only directly inside a method")
    assert _refusal("s = super(type, x)").startswith("super() is available only as super() in")
    assert _refusal("class A:\n    pass\nt = type(A)") == (
        "the type of a class (its metaclass) is not available")
    assert _refusal("x.__init__()") == "names that start with '_' are not available ('__init__')"


def test_class_refusals_are_found_before_anything_runs() -> None:
    ws = tx.Workspace(restricted=True)
    for source in ("y = 1\nclass A(metaclass=type):\n    pass",
                   "y = 1\nclass A:\n    def __del__(self):\n        pass",
                   "y = 1\nclass A:\n    _hidden = 2"):
        with pytest.raises(tx.ProgramError) as info:
            ws.run(source)
        assert info.value.kind == "refused" and info.value.line in (2, 3)
        assert "y" not in ws


def test_exception_subclasses_are_allowed_and_caught_like_any_exception() -> None:
    ws = _restricted(
        "class Oops(Exception):\n"
        "    pass\n"
        "try:\n"
        "    raise Oops('no')\n"
        "except Exception as e:\n"
        "    message = str(e)\n"
    )
    assert ws["message"] == "no"
    assert issubclass(ws["Oops"], Exception)


def test_allowed_bases_are_library_classes_with_a_plain_metaclass() -> None:
    bases = sandbox.allowed_bases()
    assert torch.nn.Module in bases and torch.nn.Linear in bases
    assert torch.utils.data.Dataset in bases and torch.utils.data.TensorDataset in bases
    assert Exception in bases and ValueError in bases
    for refused in (torch.Tensor, torch.nn.Parameter, torch.utils.data.DataLoader,
                    sandbox.SafeDataLoader, torch.optim.SGD, type, object, int, list,
                    BaseException, KeyboardInterrupt, SystemExit):
        assert refused not in bases, refused
    assert all(type(b) is type for b in bases)


def _exec_unchecked(source: str) -> dict[str, Any]:
    """Run class statements that skipped the static check, with the restricted builtins."""
    ns: dict[str, Any] = {"__builtins__": sandbox.make_builtins(print), "__name__": "t",
                          "torch": torch}
    exec(compile(source, "<unchecked>", "exec"), ns)
    return ns


@pytest.mark.parametrize(
    "source",
    [
        "class A:\n    def __getattr__(self, name):\n        return 1",
        "class A:\n    def __init_subclass__(cls):\n        pass",
        "class A:\n    def _hook(self):\n        pass",
        "class A:\n    __slots__ = ()\n    _x = 1",
        "class A(metaclass=type):\n    pass",
        "class A(torch.Tensor):\n    pass",
        "class A(torch.nn.Module):\n    def parameters(self):\n        return []",
        "class A:\n    pass\ns = super(A, A())\nclass B(A):\n    pass\nt = super(int, 1)",
    ],
)
def test_build_class_checks_again_at_run_time(source: str) -> None:
    # the static check refuses all of these first; __build_class__ and super hold on their own
    with pytest.raises(sandbox.Refused):
        _exec_unchecked(source)
    sandbox.take_refusals()


def test_program_classes_are_plain_type_classes_and_registered() -> None:
    ns = _exec_unchecked("class A:\n    pass\nclass B(A):\n    pass")
    assert type(ns["B"]) is type and sandbox.is_program_class(ns["B"])
    assert sandbox.is_program_class(ns["A"]) and not sandbox.is_program_class(int)
    assert not sandbox.is_program_class(torch.nn.Module)


def test_static_check_of_underscores_in_class_bodies() -> None:
    def refusal(source: str) -> str | None:
        try:
            sandbox.check(ast.parse(source))
        except sandbox.Refused as exc:
            return exc.message.removesuffix(sandbox.TRUST_HINT)
        return None

    assert refusal("class A:\n    def __init__(self, _a):\n        _b = _a\n"
                   "        self.v = [_ for _ in _b]") is None
    assert refusal("class A:\n    def m(self):\n        for _ in range(2):\n"
                   "            pass") is None
    assert refusal("class A:\n    for _ in range(2):\n        pass") == (
        "class attributes that start with '_' are not available ('_')")
    assert refusal("class A:\n    import math as _m") == (
        "class attributes that start with '_' are not available ('_m')")
    assert refusal("class A:\n    if True:\n        def _f(self):\n            pass") == (
        "class attributes that start with '_' are not available ('_f')")
    assert refusal("class A:\n    x = [(_y := 1)]") is not None
    assert refusal("class _Private:\n    pass") is None  # a module-level name
    assert refusal("class A:\n    class _Inner:\n        pass") == (
        "class attributes that start with '_' are not available ('_Inner')")


def test_the_rewrite_leaves_trusted_code_alone() -> None:
    # super() becomes the checked call only in restricted programs
    tree = ast.parse("class A:\n    def m(self):\n        return super()")
    assert "__tx_super__" not in ast.unparse(sandbox.rewrite_trusted(tree))
    tree = ast.parse("class A:\n    def m(self):\n        return super()")
    assert "__tx_super__(__class__, self)" in ast.unparse(sandbox.rewrite(tree))
    assert builtins.super is super


# ----- found while adding classes: to be fixed outside sandbox.py --------------------------------


def test_a_restricted_run_cannot_call_hidden_trusted_code(tmp_path: Path) -> None:
    target = tmp_path / "written.txt"
    ws = tx.Workspace()
    ws.run("_write = lambda p: open(p, 'w').write('x')")  # the user's own code
    ws["path"] = str(target)
    with pytest.raises(tx.ProgramError) as info:
        ws.run("_write(path)", restricted=True)  # a lesson file that is not trusted
    assert info.value.kind == "refused" and "_write" in str(info.value)
    assert not target.exists()


@pytest.mark.parametrize(
    "source",
    [
        "class A:\n    def __repr__(self):\n        return '{0.__class__}'.format(self)\nA()",
        "class E(Exception):\n    def __str__(self):\n        return '{0.__class__}'.format(self)\n"
        "raise E()",
    ],
    ids=["repr", "exception-str"],
)
def test_a_refusal_inside_repr_or_str_is_a_program_error(source: str) -> None:
    ws = tx.Workspace(restricted=True)
    with pytest.raises(tx.ProgramError) as info:
        ws.run(source)
    assert info.value.kind == "refused"
