// torch.nn.functional for Spire: every functional form of the layers in one include.
#pragma once
#include "engine/nn/functional/activation.h"
#include "engine/nn/functional/attention.h"
#include "engine/nn/functional/linear.h"
#include "engine/nn/functional/normalization.h"
#include "engine/nn/functional/pooling.h"
#include "engine/nn/functional/sparse.h"
#include "engine/nn/functional/spectral.h"
