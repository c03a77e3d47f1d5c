// The iterable DataPipes (TorchData's names) and IterDataPipe's functional forms: includes
// every node family under iter/ (as TorchData groups torchdata/datapipes/iter/), then the
// functional forms, which build nodes of all of them.
#pragma once

#include "ember/data/datapipes/collate.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/iter/detail.h"
#include "ember/data/datapipes/iter/sources.h"
#include "ember/data/datapipes/iter/transform.h"
#include "ember/data/datapipes/iter/util.h"
#include "ember/data/datapipes/iter/grouping.h"
#include "ember/data/datapipes/iter/buffering.h"
#include "ember/data/datapipes/iter/combining.h"
#include "ember/data/datapipes/iter/functional.h"
