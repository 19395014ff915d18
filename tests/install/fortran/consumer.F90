! Smallest Fortran user of an installed collio: writes a block-cyclic
! vector of its global indices on MPI_COMM_WORLD, reads it back.
program fconsumer
  use, intrinsic :: iso_c_binding, only: c_int64_t
  use mpi_f08
  use collio
  implicit none
  type(collio_layout) :: l
  type(collio_plan) :: p
  type(collio_file) :: f
  integer(c_int64_t), allocatable :: buf(:), back(:)
  integer(c_int64_t) :: k
  integer :: rc, rank
  character(len=1024) :: path
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  path = "fconsumer.bin"
  if (command_argument_count() >= 1) call get_command_argument(1, path)
  rc = collio_layout_block_cyclic(MPI_COMM_WORLD, 1000_c_int64_t, 3_c_int64_t, 8, l)
  if (rc == COLLIO_OK) rc = collio_plan_create(MPI_COMM_WORLD, l, "independent", p)
  allocate (buf(collio_layout_local_count(l)), back(collio_layout_local_count(l)))
  buf = [(collio_layout_global_index(l, k - 1), k = 1, size(buf, kind=c_int64_t))]
  back = -1
  if (rc == COLLIO_OK) rc = collio_file_open(MPI_COMM_WORLD, trim(path), COLLIO_FILE_CREATE, f)
  if (rc == COLLIO_OK) rc = collio_write(p, f, buf)
  if (rc == COLLIO_OK) rc = collio_file_close(f)
  if (rc == COLLIO_OK) rc = collio_file_open(MPI_COMM_WORLD, trim(path), COLLIO_FILE_READ, f)
  if (rc == COLLIO_OK) rc = collio_read(p, f, back)
  if (rc == COLLIO_OK) rc = collio_file_close(f)
  if (rank == 0) print '(a, a)', "fconsumer: ", collio_strerror(rc)
  call collio_plan_free(p)
  call collio_layout_free(l)
  call MPI_Finalize()
  if (rc /= COLLIO_OK .or. any(back /= buf)) stop 1
end program fconsumer
