"""core/modules.py against torch's own answers: named_parameters(), parameters(), buffers(),
named_modules(), numel(), requires_grad, .training."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from tensor_explorer.core.modules import (
    Member,
    access_code,
    first_names,
    member_kind,
    members,
    module_summary,
    walk,
)
from tensor_explorer.core.workspace import Workspace


class TwoLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(3, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(torch.relu(self.hidden(x)))


class Tied(nn.Module):
    """An encoder and a decoder sharing one weight, and one submodule under two names."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(4, 6, bias=False)
        self.decoder = nn.Linear(6, 4)
        self.decoder.weight = nn.Parameter(torch.randn(4, 6))
        self.head = nn.Linear(4, 4)
        self.encoder.weight = self.decoder.weight  # tied: the same Parameter, shape (4, 6)
        self.also_head = self.head


def params_in_tree(tree: list[Member]) -> list[str]:
    return [m.name for m in walk(tree) if m.kind == "parameter" and m.shared_with is None]


def buffers_in_tree(tree: list[Member]) -> list[str]:
    return [m.name for m in walk(tree) if m.kind == "buffer" and m.shared_with is None]


def sequential_bn() -> nn.Sequential:
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))


MODELS = {
    "linear": lambda: nn.Linear(5, 3),
    "sequential_bn": sequential_bn,
    "two_layer": TwoLayer,
    "tied": Tied,
}


@pytest.mark.parametrize("make", MODELS.values(), ids=list(MODELS))
def test_summary_matches_torch(make) -> None:
    m = make()
    s = module_summary(m)
    params = list(m.parameters())
    assert s.class_name == type(m).__name__
    assert s.parameters == sum(p.numel() for p in params)
    assert s.trainable == sum(p.numel() for p in params if p.requires_grad)
    assert s.parameter_tensors == len(params)
    assert s.buffers == len(list(m.buffers()))
    assert s.buffer_elements == sum(b.numel() for b in m.buffers())
    assert s.devices == {str(t.device) for t in [*params, *m.buffers()]}
    assert s.dtypes == {str(t.dtype).removeprefix("torch.") for t in [*params, *m.buffers()]}
    assert s.training is m.training is True
    assert s.submodules == len(list(m.named_modules())) - 1
    assert s.other_mode == 0 and s.frozen == 0 and s.with_grad == 0


@pytest.mark.parametrize("make", MODELS.values(), ids=list(MODELS))
def test_tree_order_is_named_parameters_and_buffers(make) -> None:
    m = make()
    tree = members(m)
    assert params_in_tree(tree) == [n for n, _ in m.named_parameters()]
    assert buffers_in_tree(tree) == [n for n, _ in m.named_buffers()]
    for member in walk(tree):
        obj = m.get_submodule(member.name) if member.kind == "module" else (
            m.get_parameter(member.name) if member.kind == "parameter" else
            m.get_buffer(member.name))
        assert member.value is obj
        assert member_kind(m, member.name) == member.kind
        if member.kind != "module":
            assert member.shape == tuple(obj.shape)
            assert member.dtype == str(obj.dtype).removeprefix("torch.")
            assert member.device == str(obj.device)
            assert member.requires_grad == obj.requires_grad
            assert member.numel == obj.numel()
        else:
            assert member.class_name == type(obj).__name__
            assert member.numel == sum(p.numel() for p in obj.parameters())


def test_linear() -> None:
    m = nn.Linear(5, 3)
    tree = members(m)
    assert [(x.name, x.kind, x.shape) for x in tree] == [
        ("weight", "parameter", (3, 5)), ("bias", "parameter", (3,))]
    assert module_summary(m).parameters == 18 and module_summary(m).submodules == 0


def test_sequential_with_batch_norm_has_buffers_and_a_tree() -> None:
    m = sequential_bn()
    tree = members(m)
    assert [(x.name, x.class_name, x.size) for x in tree] == [
        ("0", "Linear", 2), ("1", "BatchNorm1d", 5), ("2", "ReLU", 0), ("3", "Linear", 2)]
    bn = tree[1]
    assert [(x.name, x.kind) for x in bn.children] == [
        ("1.weight", "parameter"), ("1.bias", "parameter"), ("1.running_mean", "buffer"),
        ("1.running_var", "buffer"), ("1.num_batches_tracked", "buffer")]
    assert bn.children[-1].dtype == "int64" and bn.children[-1].shape == ()
    s = module_summary(m)
    assert (s.buffers, s.buffer_elements) == (3, 4 + 4 + 1)
    assert s.dtypes == {"float32", "int64"}
    assert s.submodules == 4


def test_user_module_and_access_code() -> None:
    m = TwoLayer()
    tree = members(m)
    assert [x.name for x in walk(tree)] == [
        "hidden", "hidden.weight", "hidden.bias", "out", "out.weight", "out.bias"]
    assert access_code("net", m, "hidden.weight") == "net.hidden.weight"
    seq = sequential_bn()
    assert access_code("net", seq, "1.running_mean") == "net[1].running_mean"
    assert access_code("net", seq, "0") == "net[0]"
    d = nn.ModuleDict({"enc": nn.Linear(1, 1)})
    assert access_code("d", d, "enc.bias") == "d['enc'].bias"
    # every spelling reaches the same object in Python
    for name, obj in [*seq.named_parameters(), *seq.named_buffers(), *seq.named_modules()][:-1]:
        code = access_code("net", seq, name) if name else "net"
        assert eval(code, {"net": seq}) is obj


def test_frozen_layer_and_eval_mode() -> None:
    m = TwoLayer()
    m.hidden.requires_grad_(False)
    m.eval()
    m.out.train()
    s = module_summary(m)
    assert s.trainable == sum(p.numel() for p in m.parameters() if p.requires_grad) == 18
    assert s.frozen == 32 and s.parameters == 50
    assert s.training is False and s.other_mode == 1
    frozen = [x.name for x in walk(members(m)) if x.requires_grad is False]
    assert frozen == ["hidden.weight", "hidden.bias"]


def test_gradients_are_counted() -> None:
    m = TwoLayer()
    m(torch.randn(2, 3)).sum().backward()
    assert module_summary(m).with_grad == 4
    m.zero_grad(set_to_none=True)
    assert module_summary(m).with_grad == 0


def test_shared_parameter_counted_once_and_shown_where_registered() -> None:
    m = Tied()
    s = module_summary(m)
    # as torch counts: parameters() drops duplicates by identity
    assert s.parameters == sum(p.numel() for p in m.parameters()) == 24 + 4 + 16 + 4
    assert s.parameter_tensors == len(list(m.parameters())) == 4
    assert s.submodules == len(list(m.named_modules())) - 1 == 3
    tree = walk(members(m))
    by_name = {x.name: x for x in tree}
    # named_parameters() names the tied weight where it is first registered
    assert next(n for n, _ in m.named_parameters()) == "encoder.weight"
    assert by_name["encoder.weight"].shared_with is None
    assert by_name["decoder.weight"].shared_with == "encoder.weight"
    assert by_name["decoder.weight"].value is by_name["encoder.weight"].value
    # the shared submodule: in full at its first place, a leaf naming it at the second
    assert by_name["also_head"].shared_with == "head" and by_name["also_head"].children == ()
    assert "also_head.weight" not in by_name
    assert first_names(m)[id(m.head)] == "head"


def test_depth_one_and_under() -> None:
    m = Tied()
    top = members(m, depth=1)
    assert [(x.name, x.size, x.children) for x in top] == [
        ("encoder", 1, ()), ("decoder", 2, ()), ("head", 2, ()), ("also_head", 0, ())]
    assert top[3].shared_with == "head"
    # one level of a submodule, named relative to the root; the tied weight is known as shared
    assert [(x.name, x.shared_with) for x in members(m, "decoder", depth=1)] == [
        ("decoder.weight", "encoder.weight"), ("decoder.bias", None)]
    assert [x.name for x in members(m, "encoder", depth=1)] == ["encoder.weight"]
    assert members(m, "encoder", depth=1)[0].shared_with is None


def test_lazy_module_has_no_shape_yet() -> None:
    m = nn.Sequential(nn.LazyLinear(3))
    s = module_summary(m)
    assert s.uninitialized == 2 and s.parameters == 0
    assert [(x.name, x.shape, x.numel) for x in walk(members(m))][1:] == [
        ("0.weight", None, 0), ("0.bias", None, 0)]
    m(torch.randn(2, 5))
    assert module_summary(m).parameters == sum(p.numel() for p in m.parameters()) == 18


def test_workspace_resolves_every_member() -> None:
    ws = Workspace()
    ws.run("net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))")
    net = ws["net"]
    for member in walk(members(net)):
        assert ws.get(f"net.{member.name}") is member.value
