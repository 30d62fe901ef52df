// torch.nn's layers for Spire: every layer in one include.
#pragma once
#include "engine/nn/layers/activation.h"
#include "engine/nn/layers/attention.h"
#include "engine/nn/layers/conv.h"
#include "engine/nn/layers/flatten.h"
#include "engine/nn/layers/linear.h"
#include "engine/nn/layers/normalization.h"
#include "engine/nn/layers/pooling.h"
#include "engine/nn/layers/sparse.h"
#include "engine/nn/layers/spectral.h"
