# Each layer of the tree (docs/ARCHITECTURE.md) sees only its own headers and those of the layers
# it links: its include root is a folder in the build tree holding one link, named like the layer's
# folder, to that folder. So "traces/executor.hpp" cannot even be found from models/ (which does not
# link mgsim_traces), and tests/layering.py checks the same rule on the sources.
#
# mgsim_include_root(TARGET FOLDER): TARGET (and whatever links it) includes FOLDER's headers as
# "FOLDER/name.hpp".
function(mgsim_include_root target folder)
  string(REPLACE "/" "_" root_name ${folder})
  set(root ${PROJECT_BINARY_DIR}/include_roots/${root_name})
  get_filename_component(parent ${root}/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${root}/${folder} SYMBOLIC)
  target_include_directories(${target} PUBLIC ${root})
endfunction()
