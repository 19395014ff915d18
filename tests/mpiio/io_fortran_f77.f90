! io_fortran_f77.f90 -- part of io_fortran (io_fortran.f90): its mode f77,
! through include 'mpif.h'. A file of its own: gfortran checks the calls of
! an external procedure without an explicit interface against each other
! within one file, and this one passes MPI_BOTTOM (an INTEGER) where
! io_fortran.f90 passes REALs (MPICH's `use mpi` declares no interfaces for
! the choice-buffer routines).
!
! Mode f77: the calls of mode all through mpif.h (no explicit interfaces:
! the Fortran symbols called as an old program calls them). The writes'
! statuses are MPI_STATUS_IGNORE (which must stay untouched: all zeros in
! both MPIs' common blocks), the reads' are checked; the second half is
! written from MPI_BOTTOM with an absolute-address datatype. Returns the
! first error in ierr, a count mismatch as MPI_ERR_COUNT, a written
! MPI_STATUS_IGNORE as MPI_ERR_ARG.
subroutine io_f77(path, disp, ft, buf, rbuf, n, n1, ierr)
  implicit none
  include 'mpif.h'
  character(len=*) path
  integer(kind=MPI_OFFSET_KIND) disp, off
  integer(kind=MPI_ADDRESS_KIND) addr(1)
  integer ft, n, n1, ierr, fh, c, abst, lens(1)
  real buf(*), rbuf(*)
  integer st(MPI_STATUS_SIZE)

  ! the filename with trailing blanks: the binding trims them
  call MPI_FILE_OPEN(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) return
  call MPI_FILE_SET_VIEW(fh, disp, MPI_REAL, ft, 'native', MPI_INFO_NULL, ierr)
  if (ierr /= MPI_SUCCESS) return
  call MPI_FILE_WRITE_ALL(fh, buf, n1, MPI_REAL, MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) return
  off = n1
  call MPI_GET_ADDRESS(buf(n1 + 1), addr(1), ierr)
  if (ierr /= MPI_SUCCESS) return
  lens(1) = n - n1
  call MPI_TYPE_CREATE_HINDEXED(1, lens, addr, MPI_REAL, abst, ierr)
  if (ierr /= MPI_SUCCESS) return
  call MPI_TYPE_COMMIT(abst, ierr)
  if (ierr /= MPI_SUCCESS) return
  call MPI_FILE_WRITE_AT_ALL(fh, off, MPI_BOTTOM, 1, abst, MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) return
  call MPI_TYPE_FREE(abst, ierr)
  if (any(MPI_STATUS_IGNORE /= 0)) then
    ierr = MPI_ERR_ARG
    return
  end if
  call MPI_FILE_SEEK(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
  if (ierr /= MPI_SUCCESS) return
  call MPI_FILE_READ_ALL(fh, rbuf, n, MPI_REAL, st, ierr)
  if (ierr /= MPI_SUCCESS) return
  call MPI_GET_COUNT(st, MPI_REAL, c, ierr)
  if (ierr /= MPI_SUCCESS) return
  if (c /= n) then
    ierr = MPI_ERR_COUNT
    return
  end if
  call MPI_FILE_CLOSE(fh, ierr)
  if (ierr /= MPI_SUCCESS) return
  if (fh /= MPI_FILE_NULL) ierr = MPI_ERR_FILE
end subroutine io_f77
