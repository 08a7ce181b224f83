# csim.mk: the C simulation rules a generated cnnmap HLS project includes from its Makefile
# (`include templates/csim.mk` after setting CM_CSIM_SOURCES and CM_CSIM_PROGRAM).
# The vendor's headers are used when $(XILINX_HLS)/include/ap_int.h exists; otherwise the
# project's include/ directory (cnnmap's ap_int.h and hls_stream.h) is put on the include
# path, and the design's dataflow regions run as threads with bounded, checked FIFOs (see
# include/hls_stream.h). CM_CSIM_UNBOUNDED=1 in the environment ignores the depths.
CXX ?= g++
CM_CSIM_PROGRAM ?= csim_top
CM_CSIM_CXXFLAGS ?= -std=c++17 -O2 -Wall -Werror
CM_CSIM_SANITIZE ?=

ifneq ($(wildcard $(XILINX_HLS)/include/ap_int.h),)
CM_HLS_INCLUDE := -I$(XILINX_HLS)/include
else
CM_HLS_INCLUDE := -Iinclude
endif

.PHONY: csim-build
csim-build: $(CM_CSIM_PROGRAM)
$(CM_CSIM_PROGRAM): $(CM_CSIM_SOURCES) $(wildcard include/*.h templates/*.h src/*.h src/weights/*.h)
	$(CXX) $(CM_CSIM_CXXFLAGS) $(CM_CSIM_SANITIZE) $(CM_HLS_INCLUDE) -Itemplates -Isrc \
	  -o $@ $(CM_CSIM_SOURCES) -pthread
# A project whose program is itself called csim builds it with `make csim`; others run it.
ifneq ($(CM_CSIM_PROGRAM),csim)
.PHONY: csim
csim: $(CM_CSIM_PROGRAM)
	./$(CM_CSIM_PROGRAM)
endif
