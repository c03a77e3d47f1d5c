// DataPipes (TorchData's IterDataPipe / MapDataPipe graphs), the file and S3 pipes, and the
// loaders that run them (DataLoader2 with reading services, make_data_loader).
#pragma once
#include "ember/data/datapipes/collate.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/files.h"
#include "ember/data/datapipes/frame_pipes.h"
#include "ember/data/datapipes/loader.h"
#include "ember/data/datapipes/map.h"
#include "ember/data/datapipes/ops.h"
#include "ember/data/datapipes/runner.h"
#include "ember/data/datapipes/s3.h"
