"""Each probe of coursekit.testing, tried on an answer with its mistake and on a correct one."""

from __future__ import annotations

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


def test_device_probe_tells_the_argument_from_a_written_device():
    for right in (_step,):
        with testing.DeviceProbe() as probe:
            right(nn.Linear(3, 2), torch.ones(4, 3), probe.device)
        probe.check("the step")
    with testing.DeviceProbe() as probe:
        _step_cpu(nn.Linear(3, 2), torch.ones(4, 3), probe.device)
    fails(lambda: probe.check("the step"), "moved data to cpu", "never write 'cpu'")
    with testing.DeviceProbe() as probe:
        fails(lambda: _step_cuda(nn.Linear(3, 2), torch.ones(4, 3), probe.device), ".cuda()")
    assert torch.Tensor.to is not None and not hasattr(torch.Tensor.to, "mock_calls")  # put back afterwards


def test_device_probe_check_moved_needs_a_move_to_the_given_device():
    with testing.DeviceProbe() as probe:
        _step(nn.Linear(3, 2), torch.ones(4, 3), probe.device)
    probe.check_moved("the step")
    with testing.DeviceProbe() as probe:
        nn.Linear(3, 2)(torch.ones(4, 3))   # never moves the batch
    fails(lambda: probe.check_moved("the step"), "never moved", "x.to(device)")


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


def test_run_on_meta_follows_the_input_device():
    testing.run_on_meta(lambda a, b: a[:, None, :] - b[None, :, :], torch.ones(2, 3), torch.ones(4, 3))
    fails(lambda: testing.run_on_meta(lambda a: a + torch.zeros(a.shape, device="cpu"), torch.ones(2)), "raised")
    fails(lambda: testing.run_on_meta(lambda a: torch.zeros(a.shape), torch.ones(2)), "device meta")
    testing.run_on_meta(lambda a: torch.zeros(a.shape, device=a.device), torch.ones(2))


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

def test_check_logits_refuses_probabilities_and_log_probabilities():
    scores = torch.randn(8, 5, generator=torch.Generator().manual_seed(0))
    testing.check_logits(scores)
    fails(lambda: testing.check_logits(scores.softmax(-1)), "probabilities", "Remove the Softmax")
    fails(lambda: testing.check_logits(scores.log_softmax(-1)), "log-probabilities")
    testing.check_logits(torch.rand(8, 5) * 0.1)  # in [0, 1] but rows do not sum to 1: fine


def test_loss_spy_sees_what_a_loop_feeds_the_loss():
    x, y = torch.randn(6, 4), torch.tensor([0, 1, 2, 0, 1, 2])
    model = nn.Linear(4, 3)
    spy = testing.LossSpy()
    spy(model(x), y)
    spy.check_logits("the loop")
    wrong = testing.LossSpy()
    wrong(model(x).softmax(-1), y)
    fails(lambda: wrong.check_logits("the loop"), "probabilities")
    fails(lambda: testing.LossSpy().check_logits("the loop"), "never called")


def test_check_loss_on_logits_refuses_a_softmax_or_sigmoid_first():
    targets = torch.tensor([0, 2, 1, 2])
    confident = 30 * F.one_hot(targets, 3).float()                      # (4, 3) sure and right
    testing.check_loss_on_logits(F.cross_entropy, confident, targets)
    fails(lambda: testing.check_loss_on_logits(lambda z, y: F.cross_entropy(z.softmax(1), y), confident, targets),
          "should be about 0", "softmax")
    fails(lambda: testing.check_loss_on_logits(lambda z, y: F.cross_entropy(z, y, reduction="none"), confident, targets),
          "one number")
    labels = torch.tensor([1.0, 0.0, 1.0])
    testing.check_loss_on_logits(F.binary_cross_entropy_with_logits, 30 * (2 * labels - 1), labels)
    fails(lambda: testing.check_loss_on_logits(lambda z, y: F.binary_cross_entropy_with_logits(z.sigmoid(), y),
                                               30 * (2 * labels - 1), labels), "sigmoid")


# --- modes and gradients ----------------------------------------------------------------------------------

def test_mode_spy_records_mode_and_autograd():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    with testing.ModeSpy(model) as spy:
        model.eval()
        with torch.no_grad():
            model(torch.ones(1, 2))
    spy.check_training(False, "evaluate")
    spy.check_no_grad("evaluate")
    fails(lambda: spy.check_training(True, "train_one_epoch"), "wrong mode", "model.train()")
    with testing.ModeSpy(model) as spy:
        model.train()
        model(torch.ones(1, 2))
    fails(lambda: spy.check_no_grad("evaluate"), "autograd recording", "torch.no_grad()")


def _train(model, batch, optimizer, zero=True):
    for _ in range(2):
        if zero:
            optimizer.zero_grad()
        F.cross_entropy(model(batch[0]), batch[1]).backward()
        optimizer.step()


def test_recording_sgd_catches_gradients_that_pile_up():
    batch = (torch.randn(5, 3, generator=torch.Generator().manual_seed(1)), torch.tensor([0, 1, 0, 1, 1]))
    model = nn.Linear(3, 2)
    good = testing.RecordingSGD(model.parameters())
    _train(model, batch, good)
    good.check_steps(2, "the loop")
    good.check_not_accumulated("the loop")
    good.check_no_autocast("the loop")
    bad = testing.RecordingSGD(model.parameters())
    _train(model, batch, bad, zero=False)
    fails(lambda: bad.check_not_accumulated("the loop"), "piling up", "zero_grad")
    fails(lambda: bad.check_steps(3, "the loop"), "2 times")
    under = testing.RecordingSGD(model.parameters())
    with torch.autocast("cpu", dtype=torch.bfloat16):
        under.step()
    fails(lambda: under.check_no_autocast("the loop"), "autocast")


def test_check_no_graph():
    w = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        testing.check_no_graph(w * 2)
    testing.check_no_graph((w * 2).detach())
    fails(lambda: testing.check_no_graph(w * 2), "autograd graph")


def test_untouched_sees_requires_grad_grad_and_values():
    def fresh_leaf(f, x):
        leaf = x.detach().requires_grad_()
        f(leaf).backward()
        return leaf.grad

    def on_the_callers(f, x):
        x.requires_grad_(True)
        f(x).backward()
        return x.grad

    x = torch.tensor([1.0, 2.0])
    with testing.Untouched(x, "x", what="grad_at"):
        fresh_leaf(lambda t: (t ** 2).sum(), x)

    def wrong():
        with testing.Untouched(x, "x", what="grad_at"):
            on_the_callers(lambda t: (t ** 2).sum(), x)

    fails(wrong, "switched requires_grad of x", "fresh leaf")
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    w.grad = torch.ones(2)
    guard = testing.Untouched(w, "w", what="grad_at").__enter__()
    (w ** 2).sum().backward()
    fails(guard.check, "changed w.grad", "fresh leaf")
    y = torch.tensor([3.0, 4.0])
    guard = testing.Untouched(y, "y").__enter__()
    y.add_(1)
    fails(guard.check, "changed the values of y")


def test_recording_sgd_records_the_learning_rate_of_each_step():
    param = torch.zeros(2, requires_grad=True)
    optimizer = testing.RecordingSGD([param], lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for _ in range(3):
        optimizer.step()
        scheduler.step()
    assert optimizer.lrs == [1.0, 0.5, 0.25]


# --- randomness ------------------------------------------------------------------------------------------

def test_check_reproducible_needs_the_seed_alone():
    testing.check_reproducible(lambda seed: torch.rand(3, generator=torch.Generator().manual_seed(seed)), "the draw")
    fails(lambda: testing.check_reproducible(lambda seed: torch.rand(3), "the draw"), "global random state")
    fails(lambda: testing.check_reproducible(lambda seed: torch.rand(3, generator=torch.Generator().manual_seed(0)),
                                             "the draw"), "same result for seeds")


def test_check_loader_generator():
    data = TensorDataset(torch.arange(10))
    testing.check_loader_generator(DataLoader(data, batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(0)))
    testing.check_loader_generator(DataLoader(data, batch_size=2))  # no shuffling, nothing random
    fails(lambda: testing.check_loader_generator(DataLoader(data, batch_size=2, shuffle=True)), "global random generator")


# --- shapes, ranges, stability, format --------------------------------------------------------------------

def test_check_batch_sizes():
    model = nn.Linear(4, 3)
    testing.check_batch_sizes(lambda b: model(torch.ones(b, 4)), lambda b: (b, 3), "the model")
    fails(lambda: testing.check_batch_sizes(lambda b: model(torch.ones(b, 4)).squeeze(), lambda b: (b, 3), "the model"),
          "batch of 1")
    fails(lambda: testing.check_batch_sizes(lambda b: model(torch.ones(b, 4)).squeeze().argmax(dim=1), lambda b: (b,),
                                            "the prediction"), "for a batch of 1 raised IndexError", "squeeze")


def test_check_range_and_finite():
    testing.check_range(torch.tensor([0.0, 1.0]), 0, 1)
    fails(lambda: testing.check_range(torch.tensor([0.0, 255.0]), 0, 1, "pixels"), "[0, 1]", "255")
    testing.check_finite(torch.tensor([1.0, 2.0]))
    fails(lambda: testing.check_finite(torch.tensor([1.0, float("inf")])), "inf or NaN")
    big = torch.tensor([1000.0, 0.0])
    fails(lambda: testing.check_finite(big.exp() / big.exp().sum()), "inf or NaN")
    testing.check_finite(big.softmax(-1))
    zero = torch.zeros(2)
    fails(lambda: testing.check_finite(zero / zero, when="where the gradient is 0"), "inf or NaN where the gradient is 0")
    testing.check_finite(zero / (zero + 1e-12), when="where the gradient is 0")


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
        spy(torch.ones(2, 3))
    spy.check_autocast(True, torch.bfloat16, "amp_step")
    fails(lambda: spy.check_autocast(True, torch.float16, "amp_step"), "float16 autocast")
    plain = testing.AutocastSpy(nn.Linear(3, 1))
    plain(torch.ones(2, 3))
    plain.check_autocast(False, torch.bfloat16, "amp_step")
    fails(lambda: plain.check_autocast(True, torch.bfloat16, "amp_step"), "autocast")


def test_scaler_spy_checks_the_order():
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    spy = testing.ScalerSpy(torch.amp.GradScaler("cpu"))
    for _ in range(2):
        opt.zero_grad()
        spy.scale(model(torch.ones(2, 3)).sum()).backward()
        spy.step(opt)
        spy.update()
    spy.check_order(2, "amp_step")
    forgot_update = testing.ScalerSpy(torch.amp.GradScaler("cpu"))
    forgot_update.scale(model(torch.ones(2, 3)).sum()).backward()
    forgot_update.step(opt)
    fails(lambda: forgot_update.check_order(1, "amp_step"), "scale, step, update")


def test_clock_spy_checks_synchronisation():
    from coursekit.timing import measure

    with testing.ClockSpy() as clock:
        measure(clock.tick, warmup=1, repeats=3, device=torch.device("cuda"))
    clock.check_synchronized(1, "measure")

    def careless(fn, warmup, repeats):
        for _ in range(warmup + repeats):
            fn()

    with testing.ClockSpy() as clock:
        careless(clock.tick, 1, 3)
    fails(lambda: clock.check_synchronized(1, "the timer"), "did not synchronize")


def test_expect_error():
    def strict(x):
        if x < 0:
            raise ValueError("x must not be negative")

    testing.expect_error(lambda: strict(-1), ValueError, ("negative",), "a negative x")
    fails(lambda: testing.expect_error(lambda: strict(1), ValueError, ("negative",), "x = 1"), "was accepted")
    fails(lambda: testing.expect_error(lambda: strict(-1), ValueError, ("magic",), "a negative x"), "should mention")
    testing.expect_error(lambda: [][0], (IndexError, KeyError), (), "one past the end")
    raised = testing.expect_error(lambda: strict(-2), ValueError, (), "x = -2")
    assert isinstance(raised, ValueError) and "negative" in str(raised)
    fails(lambda: testing.expect_error(lambda: {}["k"], IndexError, (), "a missing key", hint="raise IndexError"),
          "raised KeyError")


def test_runs_returns_the_result_or_says_what_failed():
    assert testing.runs(lambda: 3, "three", "no hint needed") == 3
    try:
        testing.runs(lambda: 1 / 0, "dividing by zero", "check the divisor first")
    except CheckFailed as failure:
        assert "dividing by zero failed: ZeroDivisionError" in str(failure) and "check the divisor" in str(failure)
    else:
        raise AssertionError("runs() let an exception pass")


def test_check_restored_notices_weights_rates_and_optimizer_state():
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    adam = torch.optim.Adam(model.parameters(), lr=0.1)
    before = testing.snapshot(model, adam)
    testing.check_restored(model, adam, before, "nothing")

    def one_step():
        adam.zero_grad()
        model(torch.randn(4, 3)).sum().backward()
        adam.step()

    one_step()
    fails(lambda: testing.check_restored(model, adam, before, "a step"), "has changed")
    model.load_state_dict(before["model"])
    fails(lambda: testing.check_restored(model, adam, before, "a step"), "holds state")
    adam.load_state_dict(before["optimizer"])
    testing.check_restored(model, adam, before, "a step undone")
    adam.param_groups[0]["lr"] = 1.0
    fails(lambda: testing.check_restored(model, adam, before, "a new rate"), "learning rate")


def test_nan_loss_from_turns_nan_at_its_call():
    loss = testing.NanLossFrom(2)
    logits, target = torch.randn(4, 3), torch.tensor([0, 1, 2, 0])
    assert torch.isfinite(loss(logits, target)) and torch.isnan(loss(logits, target)) and torch.isnan(loss(logits, target))


def test_refuse_cuda_puts_everything_back():
    with testing.refuse_cuda():
        fails(lambda: torch.ones(1).cuda(), ".cuda()")
    assert "_refuse" not in getattr(torch.Tensor.cuda, "__name__", "")


# --- a model elsewhere, eval mode, same history, made-up data files ----------------------------------------

def _predict_on_models_device(model, x):
    device = next(model.parameters()).device
    return model(x.to(device)).argmax(1).cpu()


def test_meta_model_sees_whether_data_is_moved_to_the_models_device():
    far = testing.MetaModel(4, 3)
    out = _predict_on_models_device(far, torch.ones(5, 4))
    assert out.shape == (5,) and out.device.type == "cpu"
    far.check("predict")
    stays = testing.MetaModel(4, 3)
    stays(torch.ones(5, 4))                  # never moved: the model's device is ignored
    fails(lambda: stays.check("predict"), "gave the model its input on cpu", "model's device")
    fails(lambda: testing.MetaModel(4, 3).check("predict"), "never called")


class _AlwaysDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, x):
        return F.dropout(self.fc(x), 0.5)    # training=True by default: dropout in eval() mode too


def test_check_eval_mode_wants_no_dropout_no_batch_statistics_and_buffers_left_alone():
    x = torch.randn(9, 6, generator=torch.Generator().manual_seed(3))
    right = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Dropout(0.5), nn.Linear(4, 3))
    right(x)                                   # training mode: the running statistics move away from their defaults
    testing.check_eval_mode(right, x, "the model")
    assert right.training                      # its mode is put back
    fails(lambda: testing.check_eval_mode(_AlwaysDropout(), x), "another output each time", "training=self.training")
    batch_stats = nn.Sequential(nn.Linear(6, 4), nn.BatchNorm1d(4, track_running_stats=False), nn.Linear(4, 3))
    fails(lambda: testing.check_eval_mode(batch_stats, x), "changes with the other rows", "running statistics")

    class Forced(nn.Module):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(6)

        def forward(self, h):
            return F.batch_norm(h, self.bn.running_mean, self.bn.running_var, training=True)

    fails(lambda: testing.check_eval_mode(Forced(), x), "in eval() mode")


def test_check_same_history():
    reference = {"train_loss": [0.5, 0.3], "test_acc": [0.9, 0.95]}
    testing.check_same_history({"train_loss": [0.5, 0.30001], "test_acc": [0.9, 0.95], "extra": [1]}, reference, "the run")
    fails(lambda: testing.check_same_history({"train_loss": [0.5, 0.31], "test_acc": [0.9, 0.95]}, reference, "the run"),
          "differs from a reference run", "set_seed(seed)")
    fails(lambda: testing.check_same_history({"train_loss": [0.5], "test_acc": [0.9, 0.95]}, reference, "the run"),
          "should hold 2 values")
    fails(lambda: testing.check_same_history([0.5, 0.3], reference, "the run"), "history dict")


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
    probe.check("the epoch")
    with testing.DeviceProbe() as probe:
        epoch(probe.device, "cpu")             # the model moved to a device written in the code
    fails(lambda: probe.check("the epoch"), "moved data to cpu")


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
