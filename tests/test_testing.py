"""Each instrument of coursekit.testing, tried on an answer with its mistake and on a correct one: what it records
(or returns) must tell them apart, since a hidden test sends that with coursekit.hidden."""

from __future__ import annotations

import copy
import time

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from coursekit import testing
from coursekit.checks import CheckFailed


def fails(fn, *words):
    with pytest.raises(CheckFailed) as info:
        fn()
    for word in words:
        assert word in str(info.value), str(info.value)


# --- device ----------------------------------------------------------------------------------------

def _step(model, x, device):
    return model.to(device)(x.to(device)).sum()


def _step_cpu(model, x, device):
    return model.to("cpu")(x.to("cpu")).sum()


def _step_cuda(model, x, device):
    return model.cuda()(x.cuda()).sum()


def _moved_to(probe):
    return sorted({str(d) for d in probe.asked_outside_coursekit})


def test_device_probe_tells_the_argument_from_a_written_device():
    with testing.DeviceProbe() as probe:
        _step(nn.Linear(3, 2), torch.ones(4, 3), probe.device)
    assert probe.device == torch.device("cpu", 0) and _moved_to(probe) == ["cpu:0"]
    with testing.DeviceProbe() as probe:
        _step_cpu(nn.Linear(3, 2), torch.ones(4, 3), probe.device)
    assert _moved_to(probe) == ["cpu"]                  # the written-in 'cpu' is another device than the one given
    with testing.DeviceProbe() as probe:
        fails(lambda: _step_cuda(nn.Linear(3, 2), torch.ones(4, 3), probe.device), ".cuda()")
    assert torch.Tensor.to is not None and not hasattr(torch.Tensor.to, "mock_calls")  # put back afterwards
    with testing.DeviceProbe() as probe:
        pass
    torch.ones(2).to(probe.device)                      # outside the block: not recorded
    assert probe.asked == [] and probe.asked_outside_coursekit == []


def test_device_probe_records_no_move_when_the_code_moves_nothing():
    with testing.DeviceProbe() as probe:
        _step(nn.Linear(3, 2), torch.ones(4, 3), probe.device)
    assert probe.device in probe.asked_outside_coursekit
    with testing.DeviceProbe() as probe:
        nn.Linear(3, 2)(torch.ones(4, 3))   # never moves the batch
    assert probe.device not in probe.asked_outside_coursekit and probe.asked == []


def test_notebook_device_elsewhere_catches_the_global_device():
    namespace = {"torch": torch, "device": torch.device("cpu")}
    exec("def wrong(x):\n    return x.to(device) + torch.ones(2)\n"
         "def right(x):\n    return x + torch.ones(2, device=x.device)\n", namespace)
    with testing.notebook_device_elsewhere(namespace, what="right"):
        right = namespace["right"](torch.ones(2))
    assert right.device.type == "cpu" and namespace["device"] == torch.device("cpu")   # the global is put back
    with pytest.raises(CheckFailed) as info:
        with testing.notebook_device_elsewhere(namespace, what="wrong"):
            namespace["wrong"](torch.ones(2))
    assert "wrong raised" in str(info.value) and "global `device`" in str(info.value)
    assert namespace["device"] == torch.device("cpu")
    empty = {}
    with testing.notebook_device_elsewhere(empty):
        assert empty["device"] == torch.device("meta")
    assert "device" not in empty
    with pytest.raises(CheckFailed):
        with testing.notebook_device_elsewhere(namespace):
            torch.ones(1).cuda()
    assert "_refuse" not in getattr(torch.Tensor.cuda, "__name__", "")


def test_pretend_cuda_answers_as_told_and_puts_back():
    def pick():
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def by_build():  # the wrong question: was PyTorch built with CUDA?
        return torch.device("cuda" if torch.version.cuda else "cpu")

    real, by_build_answers = torch.cuda.is_available, []
    for available in (True, False):
        with testing.pretend_cuda(available):
            assert pick().type == ("cuda" if available else "cpu")
            assert torch.cuda.device_count() == int(available)
            by_build_answers.append(by_build().type)
    assert by_build_answers[0] == by_build_answers[1]  # it ignores the machine: wrong on one of the two
    assert torch.cuda.is_available is real


# --- logits -----------------------------------------------------------------------------------------

def test_loss_spy_sees_what_a_loop_feeds_the_loss():
    x, y = torch.randn(6, 4, generator=torch.Generator().manual_seed(0)), torch.tensor([0, 1, 2, 0, 1, 2])
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    spy = testing.LossSpy()
    assert spy.inputs == []
    logits = model(x)
    loss = spy(logits, y)
    assert torch.allclose(loss, F.cross_entropy(logits, y)) and loss.requires_grad   # the loss itself is untouched
    assert len(spy.inputs) == 1 and torch.equal(spy.inputs[0], logits.detach()) and not spy.inputs[0].requires_grad
    wrong = testing.LossSpy()
    wrong(model(x).softmax(-1), y)
    assert torch.allclose(wrong.inputs[0].sum(-1), torch.ones(6))       # what it records shows the probabilities
    assert not torch.allclose(spy.inputs[0].sum(-1), torch.ones(6))
    other = testing.LossSpy(nn.MSELoss())
    other(torch.zeros(2, 3), torch.ones(2, 3))
    assert len(other.inputs) == 1
    assert float(other(torch.zeros(2, 3), torch.ones(2, 3))) == 1.0 and len(other.inputs) == 2


# --- modes and gradients ----------------------------------------------------------------------------------

def test_mode_spy_records_mode_and_autograd():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    with testing.ModeSpy(model) as spy:
        model.eval()
        with torch.no_grad():
            model(torch.ones(1, 2))
    assert spy.training == [False] and spy.grad_enabled == [False]
    with testing.ModeSpy(model) as spy:
        model.train()
        model(torch.ones(1, 2))
        model.eval()
        model(torch.ones(1, 2))
    assert spy.training == [True, False] and spy.grad_enabled == [True, True]
    model(torch.ones(1, 2))                     # after the block the hook is gone
    assert len(spy.training) == 2


def _train(model, batch, optimizer, zero=True):
    for _ in range(2):
        if zero:
            optimizer.zero_grad()
        F.cross_entropy(model(batch[0]), batch[1]).backward()
        optimizer.step()


def test_recording_sgd_catches_gradients_that_pile_up():
    batch = (torch.randn(5, 3, generator=torch.Generator().manual_seed(1)), torch.tensor([0, 1, 0, 1, 1]))
    model = nn.Linear(3, 2)
    good = testing.RecordingSGD(model.parameters())     # lr=0: the parameters stay put, each step sees one gradient
    _train(model, batch, good)
    assert len(good.grads) == 2 and good.autocast_on == [False, False] and good.lrs == [0.0, 0.0]
    assert any(g.abs().sum() > 0 for g in good.grads[0])
    assert all(torch.allclose(a, b) for a, b in zip(*good.grads))
    model.zero_grad()
    bad = testing.RecordingSGD(model.parameters())
    _train(model, batch, bad, zero=False)
    assert len(bad.grads) == 2 and all(torch.allclose(b, 2 * a) for a, b in zip(*bad.grads))   # they piled up
    under = testing.RecordingSGD(model.parameters())
    with torch.autocast("cpu", dtype=torch.bfloat16):
        under.step()
    under.step()
    assert under.autocast_on == [True, False]
    stepped = testing.RecordingSGD(model.parameters())
    before = [p.detach().clone() for p in model.parameters()]
    stepped.step()
    assert all(torch.equal(p, b) for p, b in zip(model.parameters(), before))            # lr=0 moves nothing


def test_recording_sgd_records_the_learning_rate_of_each_step():
    param = torch.zeros(2, requires_grad=True)
    optimizer = testing.RecordingSGD([param], lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for _ in range(3):
        optimizer.step()
        scheduler.step()
    assert optimizer.lrs == [1.0, 0.5, 0.25]


# --- randomness ------------------------------------------------------------------------------------------

def test_reproducibility_tells_the_given_seed_from_the_global_generator():
    right = testing.reproducibility(lambda seed: torch.rand(3, generator=torch.Generator().manual_seed(seed)))
    assert set(right) == {"first", "again", "other_seed"}
    assert torch.equal(right["first"], right["again"]) and not torch.equal(right["first"], right["other_seed"])
    assert torch.equal(right["first"], torch.rand(3, generator=torch.Generator().manual_seed(0)))
    global_draw = testing.reproducibility(lambda seed: torch.rand(3))
    assert not torch.equal(global_draw["first"], global_draw["again"])
    fixed = testing.reproducibility(lambda seed: torch.rand(3, generator=torch.Generator().manual_seed(0)),
                                    seeds=(5, 6))
    assert torch.equal(fixed["first"], fixed["other_seed"])      # the seed ignored: the same for both


def test_loader_generator_says_whether_the_order_has_its_own_generator():
    data = TensorDataset(torch.arange(10))
    own = DataLoader(data, batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(0))
    assert testing.loader_generator(own) == {"shuffles": True, "own_generator": True}
    assert testing.loader_generator(DataLoader(data, batch_size=2)) == {"shuffles": False, "own_generator": False}
    assert testing.loader_generator(DataLoader(data, batch_size=2, shuffle=True)) == {"shuffles": True,
                                                                                       "own_generator": False}
    assert testing.loader_generator([(torch.ones(2), torch.ones(2))]) == {"shuffles": False, "own_generator": False}


# --- format ----------------------------------------------------------------------------------------------


def test_dim_images_tell_the_format_from_the_data():
    images = testing.dim_images(4)
    assert images.dtype == torch.uint8 and int(images.max()) == 200
    by_format = images.float() / 255
    by_data = images.float() / images.max()
    assert not torch.allclose(by_format, by_data)


def test_write_idx_round_trips_and_breaks_on_request(tmp_path):
    from coursekit.data import IDXFormatError, read_idx

    data = torch.arange(2 * 3 * 4, dtype=torch.uint8).reshape(2, 3, 4)
    assert torch.equal(read_idx(testing.write_idx(tmp_path / "ok.gz", data)), data)
    with pytest.raises(IDXFormatError):
        read_idx(testing.write_idx(tmp_path / "short.gz", data, truncate=5))
    with pytest.raises(IDXFormatError):
        read_idx(testing.write_idx(tmp_path / "magic.gz", data, magic=1234))


def test_idx_bytes_round_trip_and_break_on_request():
    data = torch.arange(2 * 300, dtype=torch.int64).remainder(256).to(torch.uint8).reshape(2, 300)
    raw = testing.idx_bytes(data)
    assert raw[:4] == bytes([0, 0, 8, 2]) and raw[4:12] == bytes([0, 0, 0, 2, 0, 0, 1, 44]) and len(raw) == 12 + 600
    assert testing.idx_bytes(data, truncate=5) == raw[:-5]
    assert testing.idx_bytes(data, extra=b"\x00") == raw + b"\x00"
    assert testing.idx_bytes(data, magic=0x0C02)[:4] == bytes([0, 0, 12, 2])


def test_labelled_points_follow_the_rule_and_the_generator():
    rule = lambda p: p.norm(dim=1) > 1.5
    x, y = testing.labelled_points(200, rule, torch.Generator().manual_seed(1))
    assert x.shape == (200, 2) and x.dtype == torch.float32 and y.dtype == torch.int64
    assert torch.equal(y, rule(x).long()) and float(x.abs().max()) <= 3.0 and 0 < int(y.sum()) < 200
    again, _ = testing.labelled_points(200, rule, torch.Generator().manual_seed(1))
    assert torch.equal(x, again)


# --- mixed precision and clocks --------------------------------------------------------------------------

def test_autocast_spy():
    spy = testing.AutocastSpy(nn.Linear(3, 1))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = spy(torch.ones(2, 3))
    assert spy.seen == [(True, torch.bfloat16)] and out.dtype == torch.bfloat16
    plain = testing.AutocastSpy(nn.Linear(3, 1))
    plain(torch.ones(2, 3))
    assert len(plain.seen) == 1 and plain.seen[0][0] is False
    elsewhere = testing.AutocastSpy(nn.Linear(3, 1))
    with torch.autocast("cuda", dtype=torch.float16, enabled=torch.cuda.is_available()):
        elsewhere(torch.ones(2, 3))       # autocast for another device type: off for the CPU input
    assert elsewhere.seen[0][0] is False


def test_scaler_spy_records_the_order():
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    spy = testing.ScalerSpy(torch.amp.GradScaler("cpu"))
    for _ in range(2):
        opt.zero_grad()
        spy.scale(model(torch.ones(2, 3)).sum()).backward()
        spy.step(opt)
        spy.update()
    assert spy.calls == ["scale", "step", "update"] * 2
    assert spy.get_scale() == spy.scaler.get_scale()     # anything else goes to the scaler, unrecorded
    assert spy.calls == ["scale", "step", "update"] * 2
    forgot_update = testing.ScalerSpy(torch.amp.GradScaler("cpu"))
    forgot_update.scale(model(torch.ones(2, 3)).sum()).backward()
    forgot_update.unscale_(opt)
    forgot_update.step(opt)
    assert forgot_update.calls == ["scale", "unscale_", "step"]


def test_clock_spy_records_synchronisation_and_calls():
    from coursekit.timing import measure

    real = torch.cuda.is_available
    with testing.ClockSpy() as clock:
        assert torch.cuda.is_available()
        measure(clock.tick, warmup=1, repeats=3, device=torch.device("cuda"))
    assert torch.cuda.is_available is real
    events = clock.events
    calls = [k for k, e in enumerate(events) if e == "call"]
    assert len(calls) == 4
    assert "sync" in events[calls[0] + 1:calls[1]] and events[-1] == "sync"   # after the warm-up, and before the end

    def careless(fn, warmup, repeats):
        for _ in range(warmup + repeats):
            fn()

    with testing.ClockSpy() as clock:
        careless(clock.tick, 1, 3)
    assert clock.events == ["call"] * 4


def _rate_synchronized_at_the_end(fn, batch_size, device, warmup, repeats):
    from coursekit.timing import synchronize

    for _ in range(warmup):
        fn()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    synchronize(device)
    return batch_size * repeats / (time.perf_counter() - start)


def test_pretend_clock_gives_exact_rates_and_shows_a_missing_synchronize():
    from coursekit.timing import measure

    durations = [0.5, 0.5] + [0.25] * 3                          # two slow warm-up calls, three timed ones
    for device in ("cpu", torch.device("cuda")):
        with testing.PretendClock(durations, device) as clock:
            assert 8 / measure(clock.tick, warmup=2, repeats=3, device=device) == 32.0
        assert clock.calls == 5
    with testing.PretendClock(durations, "cpu") as clock:        # on the CPU the work is done when the call returns
        assert _rate_synchronized_at_the_end(clock.tick, 8, "cpu", 2, 3) == 32.0
    with testing.PretendClock(durations, "cuda") as clock:       # on CUDA, queued warm-up work is timed too
        assert _rate_synchronized_at_the_end(clock.tick, 8, "cuda", 2, 3) == 24 / 1.75
    with testing.PretendClock(durations, "cuda") as clock:       # and without a synchronize no time passes at all
        for _ in range(5):
            clock.tick()
        assert time.perf_counter() == testing.PretendClock.START
    real = time.perf_counter
    with testing.PretendClock([0.25], "cpu") as clock:
        clock.tick()
        clock.tick()                                             # past the list: `extra` seconds (1 by default)
        assert time.perf_counter() == testing.PretendClock.START + 1.25 and time.perf_counter_ns() == 1001_250_000_000
    assert time.perf_counter is real                             # the real clock is back


def test_pretend_clock_replaces_a_clock_imported_by_name_and_puts_it_back():
    namespace = {"perf_counter": time.perf_counter, "kept": 1}
    with testing.PretendClock([0.5], "cpu", namespace=namespace) as clock:
        start = namespace["perf_counter"]()
        clock.tick()
        assert namespace["perf_counter"]() - start == 0.5
        namespace["made_inside"] = 2                             # what the block adds stays
    assert namespace["perf_counter"] is time.perf_counter and namespace["made_inside"] == 2 and namespace["kept"] == 1


def test_nan_loss_from_turns_nan_at_its_call():
    loss = testing.NanLossFrom(2)
    logits, target = torch.randn(4, 3), torch.tensor([0, 1, 2, 0])
    assert torch.isfinite(loss(logits, target)) and torch.isnan(loss(logits, target)) and torch.isnan(loss(logits, target))


def test_refuse_cuda_puts_everything_back():
    with testing.refuse_cuda():
        fails(lambda: torch.ones(1).cuda(), ".cuda()")
    assert "_refuse" not in getattr(torch.Tensor.cuda, "__name__", "")


# --- a model elsewhere, made-up data files ----------------------------------------------------------------

def _predict_on_models_device(model, x):
    device = next(model.parameters()).device
    return model(x.to(device)).argmax(1).cpu()


def test_meta_model_sees_whether_data_is_moved_to_the_models_device():
    far = testing.MetaModel(4, 3)
    assert far.seen == [] and next(far.parameters()).device.type == "meta"
    out = _predict_on_models_device(far, torch.ones(5, 4))
    assert out.shape == (5,) and out.device.type == "cpu"
    assert [d.type for d in far.seen] == ["meta"]
    stays = testing.MetaModel(4, 3)
    stays(torch.ones(5, 4))                  # never moved: the model's device is ignored
    stays(torch.ones(2, 4))
    assert [d.type for d in stays.seen] == ["cpu", "cpu"]


def test_serve_dataset_feeds_made_up_files_to_fetch_file_and_puts_everything_back():
    import os

    from coursekit import data

    md5sum, before = data.md5sum, os.environ.get("COURSEKIT_FASHION_MNIST_DIR")
    labels = torch.arange(6) % 10
    with testing.serve_dataset("fashion-mnist", {"train": (testing.dim_images(6), labels),
                                                 "test": (testing.dim_images(4, generator=torch.Generator().manual_seed(1)),
                                                          labels[:4])}):
        images, got = data.load_split("fashion-mnist", "test")
        assert images.shape == (4, 784) and torch.equal(got, labels[:4])
        assert torch.allclose(images, testing.dim_images(4, generator=torch.Generator().manual_seed(1)).flatten(1) / 255)
        assert float(images.max()) < 0.8       # by the format's 255, not by the data's own brightest pixel
        assert data.load_split("fashion-mnist", "train")[0].shape == (6, 784)
    assert data.md5sum is md5sum and os.environ.get("COURSEKIT_FASHION_MNIST_DIR") == before
    fails(lambda: testing.serve_dataset("mnist", {"test": (testing.dim_images(2), labels[:2])}).__enter__(), "both splits")


def test_device_probe_does_not_hold_coursekits_own_moves_against_the_code():
    from coursekit.mnist import InMemoryBatches

    x, y = torch.ones(6, 3), torch.tensor([0, 1, 0, 1, 0, 1])
    model = nn.Linear(3, 2)

    def epoch(device, target):
        model.to(target)
        for xb, yb in InMemoryBatches(x, y, batch_size=4, generator=torch.Generator().manual_seed(0)):
            F.cross_entropy(model(xb.to(device)), yb.to(device)).backward()

    with testing.DeviceProbe() as probe:
        epoch(probe.device, probe.device)      # InMemoryBatches moves its order to the data's device, 'cpu'
    assert torch.device("cpu") in probe.asked
    assert _moved_to(probe) == ["cpu:0"]       # ... which is not recorded against the code
    with testing.DeviceProbe() as probe:
        epoch(probe.device, "cpu")             # the model moved to a device written in the code
    assert _moved_to(probe) == ["cpu", "cpu:0"]


def test_pretend_cuda_also_answers_a_function_bound_in_the_notebook():
    from torch.cuda import is_available as bound

    namespace = {"is_available": bound, "other": 1}
    with testing.pretend_cuda(True, namespace):
        assert namespace["is_available"]() is True
        namespace["made_inside"] = 2           # what the block adds stays
    assert namespace["is_available"] is bound and namespace["made_inside"] == 2


def test_a_copy_of_recording_sgd_keeps_recording():
    import copy

    model = nn.Linear(3, 2)
    original = testing.RecordingSGD(model.parameters())
    twin = copy.deepcopy(original)              # what code that sweeps a copy of the optimizer does
    F.cross_entropy(model(torch.ones(2, 3)), torch.tensor([0, 1])).backward()
    twin.step()
    assert len(twin.grads) == 1 and original.grads == []


def test_twin_is_an_independent_copy_with_the_same_weights():
    model = nn.Linear(3, 2)
    copy = testing.twin(model)
    assert copy is not model and all(torch.equal(a, b) for a, b in zip(model.parameters(), copy.parameters()))
    with torch.no_grad():
        copy.weight.add_(1.0)
    assert not torch.equal(copy.weight, model.weight)


# --- instruments whose records are values: evaluation, aggregation, logits, modes, no_grad -------------------------

def _numerical_grad(f, x, eps, put_back=True):
    """Central differences, element by element; put_back=False forgets to restore each element."""
    x, grad = x.clone(), torch.zeros_like(x)
    flat, out = x.view(-1), grad.view(-1)
    for i in range(flat.numel()):
        old = float(flat[i])
        flat[i] = old + eps
        plus = f(x)
        flat[i] = old - eps
        minus = f(x)
        if put_back:
            flat[i] = old
        out[i] = (plus - minus) / (2 * eps)
    return grad


def test_evaluation_spy_records_each_point_and_cross_terms_show_an_element_not_put_back():
    x = torch.tensor([[0.3, -0.7], [1.1, 0.4]], dtype=torch.float64)
    eps = 1e-3
    spy = testing.EvaluationSpy(testing.cross_terms)
    right = _numerical_grad(spy, x, eps)
    assert len(spy.points) == 2 * x.numel()
    assert all(int((p != x).sum()) == 1 for p in spy.points)            # each point moves one element only
    assert torch.equal(spy(x), testing.cross_terms(x)) and len(spy.points) == 2 * x.numel() + 1
    t = x.clone()
    spy(t)
    t.add_(1.0)
    assert torch.equal(spy.points[-1], x)                                # it keeps a copy, not the caller's tensor
    leaky = testing.EvaluationSpy(testing.cross_terms)
    wrong = _numerical_grad(leaky, x, eps, put_back=False)
    assert any(int((p != x).sum()) > 1 for p in leaky.points)           # the points tell the mistake
    exact = torch.func.grad(testing.cross_terms)(x)
    assert torch.allclose(right, exact, atol=1e-5)
    assert float((wrong - exact).abs().max()) > 1e-3                     # off by about eps, not eps squared
    squares = lambda t: (t ** 2).sum()                                   # noqa: E731  no cross terms: the leak hides
    assert torch.allclose(_numerical_grad(squares, x, eps, put_back=False), 2 * x, atol=1e-8)


def test_scripted_loss_returns_its_values_in_order_with_a_zero_gradient():
    model = nn.Linear(3, 1)
    x, y = torch.randn(10, 3, generator=torch.Generator().manual_seed(0)), torch.zeros(10, 1)
    loss_fn = testing.ScriptedLoss([0.5, 2.0])
    losses = [loss_fn(model(xb), yb) for xb, yb in testing.batches_of(x, y, 4)]
    assert [float(v.detach()) for v in losses] == [0.5, 2.0, 0.5]              # cycling through its values
    assert loss_fn.calls == 3 and loss_fn.sizes == [4, 4, 2]
    losses[0].backward()
    assert all(p.grad is not None and not p.grad.any() for p in model.parameters())   # flows, but moves nothing
    loss_fn(torch.tensor(1.0, requires_grad=True), torch.tensor(0.0))
    assert loss_fn.sizes[-1] == 1 and loss_fn.calls == 4


def test_batches_of_keeps_the_order_and_a_smaller_last_batch():
    x, y = torch.arange(10).float().unsqueeze(1), torch.arange(10)
    batches = testing.batches_of(x, y, 4)
    assert [len(xb) for xb, _ in batches] == [4, 4, 2] and len(batches) == 3
    assert torch.equal(torch.cat([xb for xb, _ in batches]), x) and torch.equal(torch.cat([yb for _, yb in batches]), y)
    assert [len(xb) for xb, _ in testing.batches_of(x, y, 5)] == [5, 5]
    assert [len(xb) for xb, _ in testing.batches_of(x, y, 20)] == [10]


def test_confident_logits_tell_a_loss_on_logits_from_one_on_probabilities():
    targets = torch.tensor([0, 2, 1, 3])
    logits = testing.confident_logits(targets, 4)
    assert logits.shape == (4, 4) and torch.equal(logits.argmax(1), targets) and float(logits.max()) == 20.0
    assert float(F.cross_entropy(logits, targets)) < 1e-6
    assert float(F.cross_entropy(-logits, targets)) > 19.0
    squashed = lambda z, t: F.cross_entropy(z.softmax(1), t)             # noqa: E731  a softmax before the loss
    assert float(squashed(logits, targets)) > 0.5 and float(squashed(-logits, targets)) < 2.0
    assert float(testing.confident_logits(targets, 4, margin=5.0).max()) == 5.0


class _AlwaysDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        return F.dropout(self.fc(x), 0.5)    # training=True by default: dropout in eval() mode too


def test_eval_outputs_show_dropout_left_on_and_batch_statistics():
    x = torch.randn(9, 6, generator=torch.Generator().manual_seed(3))
    right = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Dropout(0.5), nn.Linear(4, 3))
    right(x)                                   # training mode: the running statistics move away from their defaults
    out = testing.eval_outputs(right, x)
    assert set(out) == {"whole", "again", "first_two", "buffers"}
    assert torch.equal(out["whole"], out["again"]) and torch.allclose(out["first_two"], out["whole"][:2], atol=1e-6)
    assert not out["whole"].requires_grad and right.training              # no graph, and the mode is put back
    assert all(torch.equal(a, b) for a, b in zip(out["buffers"], right.buffers()))
    right.eval()
    testing.eval_outputs(right, x)
    assert not right.training
    dropout = testing.eval_outputs(_AlwaysDropout(), x)
    assert not torch.equal(dropout["whole"], dropout["again"])
    batch_stats = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4, track_running_stats=False), nn.Linear(4, 3))
    out = testing.eval_outputs(batch_stats, x)
    assert not torch.allclose(out["first_two"], out["whole"][:2], atol=1e-3)


def test_no_grad_only_runs_under_no_grad_and_refuses_while_autograd_records():
    inner = nn.Linear(2, 1)
    model = testing.NoGradOnly(inner)
    x = torch.randn(3, 2, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        assert torch.equal(model(x), inner(x))
    assert float(model.seen.detach()) == 3
    with torch.inference_mode():
        model(x[:2])
    assert float(model.seen.detach()) == 5
    with pytest.raises(RuntimeError):
        model(x)                                 # autograd records: the in-place count is refused
    with pytest.raises(RuntimeError):
        model(x).detach()                        # a graph built, then detached: refused too
    assert float(model.seen.detach()) == 5


def test_matmul_sgd_is_sgd_in_float32_and_differs_under_autocast():
    grad = torch.randn(4, 3, generator=torch.Generator().manual_seed(1))

    def stepped(optimizer_class, autocast):
        p = torch.nn.Parameter(torch.ones(4, 3))
        p.grad = grad.clone()
        optimizer = optimizer_class([p], lr=0.1)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            optimizer.step()
        return p.detach()

    plain = stepped(torch.optim.SGD, False)
    assert torch.allclose(stepped(testing.MatmulSGD, False), plain, rtol=0, atol=1e-5)
    assert float((stepped(testing.MatmulSGD, True) - plain).abs().max()) > 1e-3
    assert torch.equal(stepped(torch.optim.SGD, True), plain)          # plain SGD cannot tell


def test_precision_probe_shows_the_precision_of_the_product():
    layer, rows = testing.precision_probe()
    first = lambda out: float(out[0].detach())                          # noqa: E731  the first row's output
    assert rows.shape == (3, 2) and layer.bias is None and rows.device.type == "cpu"
    assert first(layer(rows)) == 2**-5 + 2**-9 + 2**-12
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert first(layer(rows)) == 2**-5
    with torch.autocast("cpu", dtype=torch.float16):
        assert first(layer(rows)) == 2**-5 + 2**-9
    assert first(layer(rows).to(torch.bfloat16)) != 2**-5             # a float32 product cast afterwards differs
    with torch.autocast("cuda", dtype=torch.float16, enabled=torch.cuda.is_available()):
        assert first(layer(rows)) == 2**-5 + 2**-9 + 2**-12         # autocast for another device type: float32


# --- where a result lives, and structures inside structures ---------------------------------------------------

def _predict_back_on_the_cpu(model, x):
    model.eval()
    with torch.no_grad():
        return model(x.to(next(model.parameters()).device)).argmax(dim=1).cpu()


def _predict_left_on_the_model(model, x):
    model.eval()
    with torch.no_grad():
        return model(x.to(next(model.parameters()).device)).argmax(dim=1)


def _predict_never_moving_x(model, x):
    model.eval()
    with torch.no_grad():
        return model(x).argmax(dim=1).cpu()


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as error:
        return error


def test_far_device_tells_a_result_brought_back_from_one_left_on_the_models_device():
    torch.manual_seed(0)
    x = torch.randn(6, 4)
    reference = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    expected = reference(x).argmax(dim=1)
    found = {}
    for answer in (_predict_back_on_the_cpu, _predict_left_on_the_model, _predict_never_moving_x):
        model = testing.twin(reference)
        with testing.FarDevice() as far:
            far.move(model)
            assert next(model.parameters()).device.type == "meta"
            result = _outcome(answer, model, x)
        found[answer] = far.located(result)
    assert torch.equal(found[_predict_back_on_the_cpu], expected)                   # values, on the CPU
    left = found[_predict_left_on_the_model]
    assert left.device.type == "meta" and left.shape == (6,) and left.dtype == torch.int64
    assert isinstance(found[_predict_never_moving_x], RuntimeError)                 # the same-device error
    assert "same device" in str(found[_predict_never_moving_x])


def test_far_device_lets_a_0d_cpu_tensor_be_read_but_not_written_as_cuda_does():
    # CUDA takes a 0-d CPU tensor as an input beside its own, never as the output (TensorIterator's device check).
    with testing.FarDevice() as far:
        loss, total = far.move(torch.tensor(2.0)), torch.zeros(())
        with pytest.raises(RuntimeError, match="same device"):
            total.add_(loss)                                               # what `total += loss` runs
        with pytest.raises(RuntimeError, match="same device"):
            torch.mul(torch.ones(()), loss, out=total)
        assert total.item() == 0.0                                         # refused before anything was written
        kept = far.move(torch.zeros(()))
        kept += torch.tensor(1.0)                                          # a CPU scalar read: allowed
        total.copy_(loss)                                                  # a copy across devices: allowed
    assert total.item() == 2.0 and far.located(kept).device.type == "meta"


def test_far_device_trains_with_real_values_and_keeps_the_parameter_objects():
    torch.manual_seed(1)
    x, y = torch.randn(8, 3), torch.randint(0, 2, (8,))
    here = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 2))
    there = testing.twin(here)
    first = there[0].weight
    for model, device in ((here, torch.device("cpu")), (there, testing.FarDevice.device)):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        with testing.FarDevice() as far:
            model.to(device)                                      # the optimizer's Parameter objects are kept
            for _ in range(2):
                optimizer.zero_grad()
                loss = F.cross_entropy(model(x.to(device)), y.to(device))
                loss.backward()
                optimizer.step()
            value = loss.item()
        model.loss = value
    assert there[0].weight is first and isinstance(first, nn.Parameter)
    assert abs(here.loss - there.loss) < 1e-6
    with testing.FarDevice() as far:
        back = [p.detach().cpu() for p in there.parameters()]
        assert there[1].running_mean.device.type == "meta"
        fails(lambda: torch.ones(2).cuda(), ".cuda()")
        with pytest.raises(TypeError):
            there[0].weight.detach().numpy()
        made = torch.zeros(3, device=there[0].weight.device)
        assert made.device.type == "meta" and made.sum().item() == 0.0
    for p, q in zip(here.parameters(), back):
        assert torch.allclose(p.detach(), q, atol=1e-6)
    assert far.located(made).device.type == "meta" and far.located(back[0]) is back[0]
    fails(lambda: far.__enter__().located(made), "after the `with` block")
    far.__exit__(None, None, None)
    assert torch.ones(2).to("meta").device.type == "meta"        # outside the block, meta is meta again


def test_far_device_deep_copies_stay_on_the_second_device_with_their_values():
    torch.manual_seed(2)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    with testing.FarDevice() as far:
        far.move(model)
        saved = copy.deepcopy(model.state_dict())                 # what a finder saves before it trains
        with torch.no_grad():
            model[0].weight.add_(1.0)
        copied = saved["0.weight"]
        assert copied.device.type == "meta" and not copied.requires_grad
        model.load_state_dict(saved)
        assert torch.equal(model[0].weight.detach().cpu(), copied.cpu())


def test_far_device_takes_a_model_moved_by_keyword_there_with_its_values():
    # model.to(device=...) is as right as model.to(device): both must reach the second device (the keyword form was
    # once taken for a factory and sent to the CPU, so ex2's and ex1's right answers that spell it lost points).
    for move in (lambda m, d: m.to(d), lambda m, d: m.to(device=d), lambda m, d: m.to(device="meta", dtype=torch.float64)):
        with testing.FarDevice() as far:
            moved = move(nn.Linear(3, 2), far.device)
            assert next(moved.parameters()).device.type == "meta"
        assert far.located(next(moved.parameters())).device.type == "meta"
    torch.manual_seed(3)
    model = nn.Linear(3, 2)
    weight = model.weight.detach().clone()
    with testing.FarDevice() as far:
        model.to(device=torch.device(far.device))
        assert model.weight.device == far.device
        out = model(torch.ones(1, 3).to(far.device))
        values = model.weight.detach().cpu()
    assert torch.equal(values, weight)
    assert far.located(out).device.type == "meta"


def _moved_one_level(batch, device):
    if isinstance(batch, dict):
        return {k: v.to(device) for k, v in batch.items()}
    return type(batch)(v.to(device) for v in batch)


def _moved_every_level(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: _moved_every_level(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(_moved_every_level(v, device) for v in batch)
    return batch


def test_nested_tells_one_level_from_every_level():
    leaves = [torch.ones(2), torch.zeros(1, dtype=torch.uint8), torch.tensor([True]), torch.arange(3), torch.rand(2, 2)]
    batch = testing.nested(*leaves)
    assert isinstance(batch, list) and isinstance(batch[0], dict) and isinstance(batch[0]["extra"], tuple)
    assert isinstance(batch[0]["extra"][1], dict) and isinstance(batch[1][0], list)
    moved = _moved_every_level(batch, "meta")
    assert moved[0]["extra"][1]["mask"].device.type == "meta" and moved[1][0][0].device.type == "meta"
    with pytest.raises(AttributeError):
        _moved_one_level(batch, "meta")