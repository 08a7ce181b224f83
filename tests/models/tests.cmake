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
endif()
