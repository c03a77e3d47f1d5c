"""The cases of bench/cuda_bench.cpp in PyTorch (eager, CUDA), same output format, for
scripts/gpu-check.sh's ratios."""
import sys
import time

import torch


def time_per_iter(fn, min_batch=0.05):
    for _ in range(3):
        fn()
    iters = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        if time.perf_counter() - t0 >= min_batch:
            break
        iters *= 2
    samples = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        samples.append((time.perf_counter() - t0) / iters)
    samples.sort()
    return samples[len(samples) // 2]


def main():
    filt = sys.argv[1] if len(sys.argv) > 1 else ""
    n = 256 << 20
    a = torch.rand(n).cuda()
    b = torch.rand(n).cuda()
    c = torch.empty(n, device="cuda")
    ah, bh = a.bfloat16(), b.bfloat16()
    x1 = torch.zeros(1, device="cuda")
    m1 = torch.randn(8192, 8192).to("cuda", torch.bfloat16)
    m2 = torch.randn(8192, 8192).to("cuda", torch.bfloat16)
    sync = torch.cuda.synchronize

    def chain():
        y = x1
        for _ in range(1000):
            y = y + 1
        sync()

    cases = [
        ("add 256M f32 (out=)", 3.0 * 4 * n, "B", lambda: (torch.add(a, b, out=c), sync())),
        ("add 256M f32", 3.0 * 4 * n, "B", lambda: (a + b, sync())),
        ("add 256M bf16", 3.0 * 2 * n, "B", lambda: (ah + bh, sync())),
        ("add 256M f32 broadcast row", 2.0 * 4 * n, "B", lambda: (a.view(n // 1024, 1024) + b[:1024], sync())),
        ("copy 256M f32 transposed", 2.0 * 4 * n, "B",
         lambda: (c.view(n // 4096, 4096).copy_(a.view(4096, n // 4096).t()), sync())),
        ("bf16 matmul 8192^3", 2.0 * 8192**3, "FLOP", lambda: (torch.mm(m1, m2), sync())),
        ("1000 one-element adds (per op)", 1, "op", chain),
    ]
    for name, work, unit, fn in cases:
        if filt and filt not in name:
            continue
        s = time_per_iter(fn)
        if name.startswith("1000 "):
            s /= 1000
        print(f"{name}\t{s:.6e}\t{work:.6e}\t{unit}", flush=True)


if __name__ == "__main__":
    main()
