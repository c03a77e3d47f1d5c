# PyTorch's DataLoader on the dataset of bench/data_loader_bench.cpp: a TensorDataset of N
# samples (3x32x32 float32 + an int64 label), batch_size 64 (default_collate stacks), one
# full epoch per timing, num_workers 0 and 2 (persistent workers, so an epoch does not pay
# for starting processes), sequential or shuffled. Prints "case<TAB>samples/s" (best epoch).
# Usage: /usr/bin/python3 bench/data_loader_bench.py [samples=100000] [epochs=3]
import sys
import time

import torch
from torch.utils.data import DataLoader, TensorDataset


def samples_per_second(dataset, workers, shuffle, epochs):
    loader = DataLoader(dataset, batch_size=64, shuffle=shuffle, num_workers=workers,
                        persistent_workers=workers > 0)
    best = 0.0
    for _ in range(epochs):
        t0 = time.perf_counter()
        seen = 0
        for x, y in loader:
            seen += x.shape[0]
        s = time.perf_counter() - t0
        assert seen == len(dataset), (seen, len(dataset))
        best = max(best, len(dataset) / s)
    return best


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    epochs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    torch.manual_seed(0)
    dataset = TensorDataset(torch.rand(n, 3, 32, 32), torch.randint(0, 10, (n,)))
    for workers in (0, 2):
        for shuffle in (False, True):
            name = "random" if shuffle else "sequential"
            print(f"{name}, {workers} workers\t{samples_per_second(dataset, workers, shuffle, epochs):.0f}", flush=True)


if __name__ == "__main__":
    main()
