"""The cases of bench/cuda_bench.cpp in PyTorch (eager, CUDA), same output format, for
scripts/gpu-check.sh's ratios."""
import sys
import time

import torch
from torch import nn
from torch.nn import functional as F


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock, written out as in bench/cuda_bench.cpp."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.b2(self.c2(F.relu(self.b1(self.c1(x)))))
        return F.relu(y + (self.down(x) if self.down is not None else x))


class ResNet18(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn = nn.BatchNorm2d(64)
        blocks, cin = [], 64
        for cout in (64, 128, 256, 512):
            blocks += [BasicBlock(cin, cout, 1 if cout == 64 else 2), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*blocks)
        self.fc = nn.Linear(512, 1000)

    def forward(self, x):
        y = F.max_pool2d(F.relu(self.bn(self.stem(x))), 3, 2, 1)
        return self.fc(F.adaptive_avg_pool2d(self.layers(y), 1).flatten(1))


def resnet_step(batch=256):
    model = ResNet18().cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, 3, 224, 224).cuda().contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (batch,)).cuda()

    def step():
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()

    return step


def transformer_step():
    layer = nn.TransformerEncoderLayer(1024, 16, dim_feedforward=4096)
    enc = nn.TransformerEncoder(layer, 6, enable_nested_tensor=False).cuda()
    opt = torch.optim.Adam(enc.parameters(), lr=1e-4)
    x = torch.randn(512, 32, 1024).cuda()

    def step():
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = enc(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        torch.cuda.synchronize()

    return step


def lazily(make):
    state = {}

    def run():
        if "fn" not in state:
            state["fn"] = make()
        state["fn"]()

    return run


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
    filters = sys.argv[1:]
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
        ("resnet18 train step b256 bf16 cl", 256, "img", lazily(resnet_step)),
        ("transformer enc train step b32 s512", 32, "seq", lazily(transformer_step)),
    ]
    for name, work, unit, fn in cases:
        if filters and not any(f in name for f in filters):
            continue
        s = time_per_iter(fn)
        if name.startswith("1000 "):
            s /= 1000
        print(f"{name}\t{s:.6e}\t{work:.6e}\t{unit}", flush=True)


if __name__ == "__main__":
    main()
