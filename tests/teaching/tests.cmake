# tests/teaching/tests.cmake — the teaching part: `explain --svg` output parsed as XML, the
# Python module's smoke test, the notebooks' command-line fallback, and every notebook run
# top to bottom with nbconvert. What needs Python, pybind11 or Jupyter says so when skipped.
set(TEACHING_DIR ${CMAKE_CURRENT_SOURCE_DIR}/teaching)
add_test(NAME "teaching: explain --svg writes well-formed SVG with an arrow per transfer"
         COMMAND bash ${TEACHING_DIR}/svg_wellformed.sh $<TARGET_FILE:collsim> ${COLLSIM_PYTHON})

set(TEACHING_ENV PYTHONPATH=${PROJECT_BINARY_DIR}/python:${PROJECT_SOURCE_DIR}/notebooks
                 COLLSIM_BIN=$<TARGET_FILE:collsim> COLLSIM_ROOT=${PROJECT_SOURCE_DIR})
execute_process(COMMAND ${COLLSIM_PYTHON} -c "import pandas" RESULT_VARIABLE no_pandas OUTPUT_QUIET ERROR_QUIET)
if(no_pandas)
  collsim_skipped_test("teaching: notebook helper"
                       "pandas missing for ${COLLSIM_PYTHON}")
else()
  add_test(NAME "teaching: notebook helper falls back to the command line with the same data"
           COMMAND ${CMAKE_COMMAND} -E env ${TEACHING_ENV} ${COLLSIM_PYTHON} ${TEACHING_DIR}/test_helper.py)
endif()

if(NOT COLLSIM_PYTHON_MODULE)
  collsim_skipped_test("teaching: Python module and notebooks"
                       "the collsim Python module is off (see the configure output)")
  return()
endif()
add_test(NAME "teaching: python module builds, checks, explains and predicts as the command line"
         COMMAND ${CMAKE_COMMAND} -E env ${TEACHING_ENV} ${COLLSIM_PYTHON} ${TEACHING_DIR}/test_module.py)
# pip install . into a fresh venv (no network: --no-build-isolation --no-index, this build's module).
execute_process(COMMAND ${COLLSIM_PYTHON} -c "import venv, ensurepip, setuptools, wheel"
                RESULT_VARIABLE no_pip_build OUTPUT_QUIET ERROR_QUIET)
if(no_pip_build)
  collsim_skipped_test("teaching: pip install ."
                       "pip install . needs python3-venv python3-setuptools python3-wheel for ${COLLSIM_PYTHON}")
else()
  add_test(NAME "teaching: pip install . gives a module that predicts as the command line"
           COMMAND ${CMAKE_COMMAND} -E env COLLSIM_PROGRESS=0
                   ${COLLSIM_PYTHON} ${TEACHING_DIR}/test_pip_install.py ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
                   $<TARGET_FILE:collsim>)
  # Its CMake step checks the build tree: not beside another test that rebuilds it.
  set_tests_properties("teaching: pip install . gives a module that predicts as the command line"
                       PROPERTIES TIMEOUT 600)
endif()
if(TARGET collsim-mpi-worker)
  add_test(NAME "teaching: python module validates on MPI ranks through the same pipeline as the command line"
           COMMAND ${CMAKE_COMMAND} -E env ${TEACHING_ENV} ${COLLSIM_PYTHON} ${TEACHING_DIR}/test_module_validate.py)
  set_tests_properties("teaching: python module validates on MPI ranks through the same pipeline as the command line"
                       PROPERTIES RUN_SERIAL ON)
else()
  collsim_skipped_test("teaching: python module validate" "collsim-mpi-worker not built (MPI not found)")
endif()

execute_process(COMMAND ${COLLSIM_PYTHON} -c "import nbconvert, ipykernel, matplotlib, pandas"
                RESULT_VARIABLE no_jupyter OUTPUT_QUIET ERROR_QUIET)
if(no_jupyter)
  collsim_skipped_test("notebooks"
                       "notebooks need jupyter-nbconvert python3-ipykernel python3-matplotlib python3-pandas")
  return()
endif()
add_test(NAME "notebooks: committed executed, cell for cell what make_notebooks.py writes"
         COMMAND ${COLLSIM_PYTHON} ${TEACHING_DIR}/test_notebooks_committed.py ${PROJECT_SOURCE_DIR}/notebooks)
add_test(NAME "notebooks: 04 finds validate/results when run from another folder"
         COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_BINARY_DIR}/python COLLSIM_BIN=$<TARGET_FILE:collsim>
                 ${COLLSIM_PYTHON} ${TEACHING_DIR}/test_notebook_data.py ${PROJECT_SOURCE_DIR}/notebooks)
file(GLOB notebooks CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/notebooks/*.ipynb)
foreach(notebook ${notebooks})
  get_filename_component(name ${notebook} NAME_WE)
  add_test(NAME "notebooks: ${name} runs top to bottom"
           COMMAND ${CMAKE_COMMAND} -E env ${TEACHING_ENV} ${COLLSIM_PYTHON} -m nbconvert --to notebook --execute
                   --ExecutePreprocessor.timeout=300 --output-dir ${PROJECT_BINARY_DIR}/notebooks ${notebook})
  set_tests_properties("notebooks: ${name} runs top to bottom" PROPERTIES TIMEOUT 600)
endforeach()
