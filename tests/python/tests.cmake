# The Python package's tests (pytest, Debian's python3-pytest): one ctest per
# tests/python/test_*.py, run by Debian's python3 against build/python.
if(TARGET cnnmap_python)
  file(GLOB CM_PY_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_*.py)
  foreach(t ${CM_PY_TESTS})
    get_filename_component(name ${t} NAME_WE)
    add_test(NAME python_${name}
      COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider ${t}
      WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
    set_tests_properties(python_${name} PROPERTIES ENVIRONMENT
      "PYTHONPATH=${CMAKE_BINARY_DIR}/python;CNNMAP_CLI=$<TARGET_FILE:cnnmap_cli>;CNNMAP_SHARED=${CM_SHARED_DIR};CNNMAP_TEST_MODELS=${CM_TEST_MODELS_DIR};PYTHONDONTWRITEBYTECODE=1")
  endforeach()
endif()
