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


def test_run_on_meta_follows_the_input_device():
    testing.run_on_meta(lambda a, b: a[:, None, :] - b[None, :, :], torch.ones(2, 3), torch.ones(4, 3))
    fails(lambda: testing.run_on_meta(lambda a: a + torch.zeros(a.shape, device="cpu"), torch.ones(2)), "raised")
    fails(lambda: testing.run_on_meta(lambda a: torch.zeros(a.shape), torch.ones(2)), "device meta")
    testing.run_on_meta(lambda a: torch.zeros(a.shape, device=a.device), torch.ones(2))


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


def test_check_range_and_finite():
    testing.check_range(torch.tensor([0.0, 1.0]), 0, 1)
    fails(lambda: testing.check_range(torch.tensor([0.0, 255.0]), 0, 1, "pixels"), "[0, 1]", "255")
    testing.check_finite(torch.tensor([1.0, 2.0]))
    fails(lambda: testing.check_finite(torch.tensor([1.0, float("inf")])), "inf or NaN")
    big = torch.tensor([1000.0, 0.0])
    fails(lambda: testing.check_finite(big.exp() / big.exp().sum()), "inf or NaN")
    testing.check_finite(big.softmax(-1))


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


def test_refuse_cuda_puts_everything_back():
    with testing.refuse_cuda():
        fails(lambda: torch.ones(1).cuda(), ".cuda()")
    assert "_refuse" not in getattr(torch.Tensor.cuda, "__name__", "")
