# Golden data for tests/ops/fft_test.cpp: torch.fft (PyTorch 1.13, pocketfft on the CPU) on
# deterministic inputs, every function with its n/s, dim and norm arguments, real and complex,
# float and double, odd, even, prime and padded/truncated lengths.
#   PYTHONPATH=<dir with safetensors> /usr/bin/python3 tests/golden/gen_fft.py
# Metadata "case.<name>" = "<fn>;<dtype>;<shape>;<n or s>;<dim>;<norm>" (empty fields are
# defaults); tensors "<name>.out" (complex results as view_as_real), or "error.<name>" = the
# error PyTorch raised.
import os

import torch
from safetensors.torch import save_file

DT = {"f32": torch.float32, "f64": torch.float64, "c64": torch.complex64, "c128": torch.complex128,
      "i64": torch.int64}


def ramp(shape, dt):
    n = 1
    for s in shape:
        n *= s
    v = torch.sin(torch.arange(n, dtype=torch.float64) * 0.7) + (torch.arange(n, dtype=torch.float64) % 5) * 0.1
    if dt.is_complex:
        w = torch.cos(torch.arange(n, dtype=torch.float64) * 1.3)
        return torch.complex(v, w).reshape(shape).to(dt)
    if dt == torch.int64:
        return (torch.arange(n) % 7 - 3).reshape(shape)
    return v.reshape(shape).to(dt)


def ints(s):
    return [int(x) for x in s.split(",")] if s else None


CASES = {}


def case(name, fn, dt, shape, size="", dim="", norm=""):
    assert name not in CASES
    CASES[name] = (fn, dt, shape, size, dim, norm)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
for fn in ONE_D:
    real_in = fn in ("rfft", "ihfft")
    for dt in (["f32", "f64"] if real_in else ["c64", "c128", "f64"]) + (["i64"] if real_in else []):
        for shape in ["7", "8", "3,16", "4,5,6", "31", "1", "2"]:
            for norm in ["", "forward", "ortho"]:
                case(f"{fn}_{dt}_{shape.replace(',', 'x')}_{norm or 'backward'}", fn, dt, shape, "", "", norm)
    case(f"{fn}_n_pad", fn, "f64" if real_in else "c128", "4,6", "10", "1", "")
    case(f"{fn}_n_trunc", fn, "f64" if real_in else "c128", "4,9", "5", "1", "ortho")
    case(f"{fn}_dim0", fn, "f32" if real_in else "c64", "12,3", "", "0", "")
    case(f"{fn}_prime", fn, "f64" if real_in else "c128", "2,97", "", "", "forward")
    case(f"{fn}_large", fn, "f32" if real_in else "c64", "2,1000", "", "", "")
for fn in ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]:
    real_in = fn.startswith(("rfft", "ihfft"))
    dt = "f64" if real_in else "c128"
    case(f"{fn}_basic", fn, dt, "3,4,6")
    case(f"{fn}_float", fn, "f32" if real_in else "c64", "5,6")
    case(f"{fn}_s", fn, dt, "3,4,6", "5,8", "", "ortho")
    case(f"{fn}_dims", fn, dt, "3,4,6", "", "0,2", "forward")
    case(f"{fn}_s_dims", fn, dt, "3,4,6", "2,7", "2,0", "")
    if fn.endswith("n"):
        case(f"{fn}_alldims_s", fn, dt, "3,4,6", "3,5,6" if not fn.startswith(("irfft", "hfft")) else "3,5,10", "0,1,2", "")
case("fftn_real_input", "fftn", "f64", "3,4", "", "", "")
case("fft_real_input", "fft", "f32", "9", "", "", "ortho")
case("fftfreq", "fftfreq", "f64", "9", "", "", "")
case("fftfreq_even", "fftfreq", "f32", "10", "", "", "")
case("rfftfreq", "rfftfreq", "f64", "9", "", "", "")
case("fftshift", "fftshift", "f64", "5,6", "", "", "")
case("ifftshift_dim", "ifftshift", "f64", "5,6", "", "1", "")


def run(fn, dt, shape, size, dim, norm):
    shape = ints(shape)
    norm = norm or None
    if fn in ("fftfreq", "rfftfreq"):
        return getattr(torch.fft, fn)(shape[0], 0.5, dtype=DT[dt])
    x = ramp(shape, DT[dt])
    if fn in ("fftshift", "ifftshift"):
        return getattr(torch.fft, fn)(x, dim=ints(dim))
    f = getattr(torch.fft, fn)
    if fn in ONE_D:
        kw = {"norm": norm}
        if size:
            kw["n"] = int(size)
        if dim:
            kw["dim"] = int(dim)
        return f(x, **kw)
    kw = {"norm": norm}
    if size:
        kw["s"] = ints(size)
    if dim:
        kw["dim"] = ints(dim)
    elif fn.endswith("n") and fn.startswith(("hfft", "ihfft")):
        kw["dim"] = [-2, -1]  # LibTorch 1.13's C++ default for hfftn/ihfftn
    return f(x, **kw)


if __name__ == "__main__":
    out, meta = {}, {}
    for name, spec in CASES.items():
        meta[f"case.{name}"] = ";".join(spec)
        try:
            r = run(*spec)
        except RuntimeError as e:  # the C++ test expects the same refusal
            meta[f"error.{name}"] = str(e).split("\n")[0]
            continue
        out[f"{name}.out"] = (torch.view_as_real(r.resolve_conj()) if r.is_complex() else r).contiguous().clone()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fft.safetensors")
    save_file(out, path, metadata=meta)
    os.chmod(path, 0o644)
    print(f"{len(CASES)} cases -> {path}")
