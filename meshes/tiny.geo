// tiny.geo -- a unit cube of ~500 nodes for tests (tests/unit_mesh.c):
//   gmsh -3 -format msh41 -o tiny.msh meshes/tiny.geo
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 1, 1, 1};
Mesh.MeshSizeMin = 0.15;
Mesh.MeshSizeMax = 0.15;
Physical Volume("cube") = {1};
