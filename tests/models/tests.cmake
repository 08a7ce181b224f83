# Generated-model tests: torchvision networks exported by torch.onnx, and the papers'
# networks built from their published layer shapes. The generators need Debian's
# python3-torch, python3-torchvision and python3-onnx, hence /usr/bin/python3.
find_program(CM_SYSTEM_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(CM_SYSTEM_PYTHON)
  add_test(NAME generate_torchvision_models
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/models/export_torchvision.py
            ${CM_TEST_MODELS_DIR}/torchvision)
  set_tests_properties(generate_torchvision_models PROPERTIES
    FIXTURES_SETUP torchvision_models TIMEOUT 1800)
  add_test(NAME generate_zoo_models
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/models/make_zoo.py
            ${CM_TEST_MODELS_DIR}/zoo)
  set_tests_properties(generate_zoo_models PROPERTIES FIXTURES_SETUP zoo_models TIMEOUT 600)
  # The shared QONNX ResNet-8 with three grouped convolutions, for nn2FPGA's grouped engine.
  add_test(NAME generate_grouped_model
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/models/make_grouped.py
            ${CM_SHARED_DIR}/models ${CM_TEST_MODELS_DIR}/resnet8_grouped.onnx)
  set_tests_properties(generate_grouped_model PROPERTIES FIXTURES_SETUP grouped_model TIMEOUT 120)

  # Every torchvision network (classification, segmentation, detection and the
  # detection backbones) at opsets 11, 13 and 17, without weight bytes; the check
  # loads each: MACs equal to PyTorch's forward hooks, or a refusal where allowed.
  # The export takes about 11 minutes and 12.5 CPU-minutes on the project's machine, and
  # a peak of 10.5 GB (RegNet-Y 128GF, ViT-H/14), hence one network at a time; once
  # (an up-to-date folder is checked in seconds, the check itself in 3 s, 15 s under
  # the sanitizers). -DCM_SWEEP_TESTS=OFF leaves it out of a quick local build.
  option(CM_SWEEP_TESTS "Export and check every torchvision network at opsets 11, 13, 17" ON)
endif()
if(CM_SYSTEM_PYTHON AND CM_SWEEP_TESTS)
  add_test(NAME generate_sweep_models
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/models/export_sweep.py
            ${CM_TEST_MODELS_DIR}/sweep --jobs 1)
  set_tests_properties(generate_sweep_models PROPERTIES FIXTURES_SETUP sweep_models TIMEOUT 3600)
  add_test(NAME torchvision_sweep
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/models/check_sweep.py
            $<TARGET_FILE:cnnmap_cli> ${CM_TEST_MODELS_DIR}/sweep)
  set_tests_properties(torchvision_sweep PROPERTIES FIXTURES_REQUIRED sweep_models TIMEOUT 900)
endif()
if(CM_SYSTEM_PYTHON)
  # `cnnmap run` on ShuffleNetV2 (torch's Slices for chunk, the channel shuffles) against
  # PyTorch and ONNX Runtime, with tests/run/check_float.py (see tests/run/README.md);
  # tests/run/tests.cmake, which defines the run checks' environment, comes later.
  set(cm_node_dir ${CMAKE_SOURCE_DIR}/build/node)
  if(CM_NODE_DIR)
    set(cm_node_dir ${CM_NODE_DIR})
  endif()
  set(cm_quick "")
  if(CM_SANITIZE)
    set(cm_quick --quick)
  endif()
  add_test(NAME run_float_shufflenet
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/run/check_float.py
            $<TARGET_FILE:cnnmap_cli> ${CM_TEST_MODELS_DIR}/torchvision
            --models shufflenet_v2_x0_5 --workdir ${CMAKE_CURRENT_BINARY_DIR}/run-float-shufflenet
            ${cm_quick})
  set_tests_properties(run_float_shufflenet PROPERTIES
    ENVIRONMENT "CM_SHARED_DIR=${CM_SHARED_DIR};CM_NODE_MODULES=${cm_node_dir}/node_modules"
    FIXTURES_REQUIRED torchvision_models TIMEOUT 900)
endif()

# The executor on the channel-wise operators of ConvNeXt and segmentation heads (GELU,
# LayerNormalization between channel-moving Transposes, linear Resize), against numpy
# and ONNX Runtime (tests/run/ort_run.js, when scripts/deps.sh installed it).
if(CM_SYSTEM_PYTHON)
  add_test(NAME run_channelwise
    COMMAND ${CM_SYSTEM_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/models/check_channelwise.py
            $<TARGET_FILE:cnnmap_cli> ${CMAKE_CURRENT_BINARY_DIR}/run-channelwise)
  set_tests_properties(run_channelwise PROPERTIES
    ENVIRONMENT "CM_NODE_MODULES=${CMAKE_SOURCE_DIR}/build/node/node_modules" TIMEOUT 300)
endif()
