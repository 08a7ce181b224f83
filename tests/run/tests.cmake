# End-to-end checks of `cnnmap run` (the reference executor) against independent oracles:
# tests/run/qonnx_ref.py (a float64 numpy evaluator of QONNX), ONNX Runtime
# (tests/run/ort_run.js, npm's onnxruntime-node, which scripts/deps.sh installs into
# build/node) and PyTorch. They need Debian's python3 (numpy, onnx, torch, torchvision)
# and Node.js. Under the sanitizers cnnmap is slow, so the checks run fewer frames there
# (--quick); the gcc build runs the full counts.
find_program(CM_SYSTEM_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
set(CM_NODE_DIR ${CMAKE_SOURCE_DIR}/build/node CACHE PATH
    "Where scripts/deps.sh installed onnxruntime-node (the directory holding node_modules)")
if(CM_SYSTEM_PYTHON)
  set(CM_RUN_QUICK "")
  if(CM_SANITIZE)
    set(CM_RUN_QUICK --quick)
  endif()
  set(CM_RUN_ENV "CM_SHARED_DIR=${CM_SHARED_DIR};CM_NODE_MODULES=${CM_NODE_DIR}/node_modules")

  # The reference evaluator's own hand-computed cases (Quant ranges and rounding modes,
  # BipolarQuant, Trunc, MultiThreshold, conv, pooling).
  add_test(NAME run_qonnx_ref_selftest
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/run/qonnx_ref.py --selftest)

  # The shared QONNX models, bit for bit against qonnx_ref and, on their QCDQ rewrites,
  # against ONNX Runtime. Skipped (77) when the shared models are missing, failed under
  # CI=true.
  add_test(NAME run_qonnx
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/run/check_qonnx.py
            $<TARGET_FILE:cnnmap_cli> ${CMAKE_CURRENT_BINARY_DIR}/run-qonnx ${CM_RUN_QUICK})
  set_tests_properties(run_qonnx PROPERTIES
    ENVIRONMENT "${CM_RUN_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 1200)

  # torchvision float models against PyTorch and ONNX Runtime (1e-4 relative), and the
  # shared LeNet against ONNX Runtime.
  add_test(NAME run_float
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/run/check_float.py
            $<TARGET_FILE:cnnmap_cli> ${CM_TEST_MODELS_DIR}/torchvision
            --workdir ${CMAKE_CURRENT_BINARY_DIR}/run-float ${CM_RUN_QUICK})
  set_tests_properties(run_float PROPERTIES
    ENVIRONMENT "${CM_RUN_ENV}" FIXTURES_REQUIRED torchvision_models TIMEOUT 1800)
endif()
