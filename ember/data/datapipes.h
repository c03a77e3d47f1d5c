// DataPipes (TorchData's IterDataPipe / MapDataPipe graphs) and the loaders that run them.
#pragma once
#include "ember/data/datapipes/collate.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/map.h"
#include "ember/data/datapipes/ops.h"
#include "ember/data/datapipes/loader.h"
#include "ember/data/datapipes/runner.h"
