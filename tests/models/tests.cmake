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
  if(TEST test_torchvision)
    set_tests_properties(test_torchvision PROPERTIES FIXTURES_REQUIRED torchvision_models)
  endif()
  if(TEST test_optimise_budget)
    set_tests_properties(test_optimise_budget PROPERTIES FIXTURES_REQUIRED torchvision_models)
  endif()
  # Tests that read the zoo models.
  foreach(t test_zoo test_design test_optimise_rule test_optimise_anneal_brute test_optimise_exact
            test_latency test_multi)
    if(TEST ${t})
      set_tests_properties(${t} PROPERTIES FIXTURES_REQUIRED zoo_models)
    endif()
  endforeach()
  if(TEST test_overlay_models)
    set_tests_properties(test_overlay_models PROPERTIES FIXTURES_REQUIRED "torchvision_models;zoo_models")
  endif()
endif()
