/* All of cnnmap's public API. */
#ifndef CNNMAP_H
#define CNNMAP_H
#include <cnnmap/version.h>
#include <cnnmap/error.h>
#include <cnnmap/quant.h>
#include <cnnmap/graph.h>
#include <cnnmap/model.h>
#include <cnnmap/board.h>
#include <cnnmap/backend.h>
#include <cnnmap/design.h>
#include <cnnmap/design_io.h>
#include <cnnmap/export.h>
#include <cnnmap/optimise.h>
#include <cnnmap/latency.h>
#include <cnnmap/multi.h>
#include <cnnmap/overlay.h>
#include <cnnmap/nn2fpga.h>
#include <cnnmap/run.h>
#endif
